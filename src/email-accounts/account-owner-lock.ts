import type { TableRow } from '../db/rows.js';
import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';

/**
 * The account's owner, read under a FOR KEY SHARE lock held until the caller's transaction ends: a
 * hand-over (FOR UPDATE of the account row) waits for the writer, or the writer reads the new owner.
 * Every writer of rows that carry the owner (contacts, emails) reads it here. Undefined once the
 * account is gone.
 */
export async function lockAccountOwner(sql: Sql, accountId: string, tx: Tx): Promise<string | undefined> {
  const row = await sql.one<TableRow<'email_accounts', 'user_id'>>('SELECT user_id FROM email_accounts WHERE id = $accountId FOR KEY SHARE', { accountId }, tx);
  return row?.user_id;
}
