import { selectList, type ColumnOf, type TableRow } from '../db/rows.js';
import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';

export interface SignatureRecord {
  emailAccountId: string;
  text: string;
  html: string | null;
  updatedAt: Date | null;
}

const SIGNATURE_COLUMNS = ['email_account_id', 'text', 'html', 'updated_at'] as const satisfies readonly ColumnOf<'email_signatures'>[];
type SignatureRow = TableRow<'email_signatures', (typeof SIGNATURE_COLUMNS)[number]>;
const COLUMNS = selectList(SIGNATURE_COLUMNS);

const toRecord = (r: SignatureRow): SignatureRecord => ({ emailAccountId: r.email_account_id, text: r.text, html: r.html, updatedAt: r.updated_at });

/** email_signatures (migrations/0042): one per user and email account. */
export class SignatureRepository {
  constructor(private readonly sql: Sql) {}

  async find(userId: string, accountId: string, tx?: Tx): Promise<SignatureRecord | undefined> {
    const row = await this.sql.one<SignatureRow>(`SELECT ${COLUMNS} FROM email_signatures WHERE user_id = $userId AND email_account_id = $accountId`, { userId, accountId }, tx);
    return row && toRecord(row);
  }

  async upsert(userId: string, accountId: string, text: string, html: string | null, tx?: Tx): Promise<SignatureRecord> {
    const row = await this.sql.one<SignatureRow>(
      `INSERT INTO email_signatures (user_id, email_account_id, text, html) VALUES ($userId, $accountId, $text, $html)
       ON CONFLICT (user_id, email_account_id) DO UPDATE SET text = EXCLUDED.text, html = EXCLUDED.html, updated_at = now()
       RETURNING ${COLUMNS}`,
      { userId, accountId, text, html },
      tx,
    );
    return toRecord(row!);
  }
}
