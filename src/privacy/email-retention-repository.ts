import { recomputeLastEmailAt } from '../contacts/contact-mail-links.js';
import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';

/** The deletes of EMAIL_RETENTION_DAYS (email-retention.ts). */
export class EmailRetentionRepository {
  constructor(private readonly sql: Sql) {}

  async accountIds(only?: string[]): Promise<string[]> {
    const rows = await this.sql.select<{ id: string }>('SELECT id FROM email_accounts WHERE $all OR id = ANY($ids::uuid[]) ORDER BY id', {
      all: only === undefined,
      ids: only ?? [],
    });
    return rows.map((r) => r.id);
  }

  /**
   * Deletes up to `limit` of the account's emails dated before `before` (oldest first, along
   * emails_account_date_idx); answers how many, and the contacts that were linked to them.
   */
  async deleteOlder(accountId: string, before: Date, limit: number, tx: Tx): Promise<{ emails: number; contactIds: string[] }> {
    const row = await this.sql.one<{ emails: number; touched: string[] }>(
      `WITH doomed AS (SELECT id FROM emails WHERE email_account_id = $accountId AND date < $before ORDER BY date LIMIT $limit),
       touched AS (SELECT DISTINCT l.contact_id FROM email_contacts l JOIN doomed d ON d.id = l.email_id),
       gone AS (DELETE FROM emails e USING doomed d WHERE e.id = d.id RETURNING e.id)
       SELECT (SELECT count(*) FROM gone)::int AS emails, ARRAY(SELECT contact_id FROM touched) AS touched`,
      { accountId, before, limit },
      tx,
    );
    return { emails: row?.emails ?? 0, contactIds: row?.touched ?? [] };
  }

  /** last_email_at from what is left (NULL when nothing is): the one rule of contact-mail-links.ts. */
  recomputeLastEmailAt(contactIds: string[], tx: Tx): Promise<void> {
    return recomputeLastEmailAt(this.sql, contactIds, tx);
  }

  /** Of these contacts, deletes those with no email left (filed under them or linked); answers how many. */
  deleteIfEmpty(contactIds: string[], tx: Tx): Promise<number> {
    return this.sql.execute(
      `DELETE FROM contacts c WHERE c.id = ANY($contactIds::uuid[])
          AND NOT EXISTS (SELECT 1 FROM email_contacts l WHERE l.contact_id = c.id)
          AND NOT EXISTS (SELECT 1 FROM emails e WHERE e.contact_id = c.id)`,
      { contactIds },
      tx,
    );
  }
}
