import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';

export interface SignatureRecord {
  emailAccountId: string;
  text: string;
  html: string | null;
  updatedAt: Date | null;
}

interface SignatureRow {
  email_account_id: string;
  text: string;
  html: string | null;
  updated_at: Date;
}

const toRecord = (r: SignatureRow): SignatureRecord => ({ emailAccountId: r.email_account_id, text: r.text, html: r.html, updatedAt: r.updated_at });

/** email_signatures (migrations/0042): one per user and email account. */
export class SignatureRepository {
  constructor(private readonly sql: Sql) {}

  async find(userId: string, accountId: string, tx?: Tx): Promise<SignatureRecord | undefined> {
    const row = await this.sql.one<SignatureRow>(
      'SELECT email_account_id, text, html, updated_at FROM email_signatures WHERE user_id = $userId AND email_account_id = $accountId',
      { userId, accountId },
      tx,
    );
    return row && toRecord(row);
  }

  async upsert(userId: string, accountId: string, text: string, html: string | null, tx?: Tx): Promise<SignatureRecord> {
    const row = await this.sql.one<SignatureRow>(
      `INSERT INTO email_signatures (user_id, email_account_id, text, html) VALUES ($userId, $accountId, $text, $html)
       ON CONFLICT (user_id, email_account_id) DO UPDATE SET text = EXCLUDED.text, html = EXCLUDED.html, updated_at = now()
       RETURNING email_account_id, text, html, updated_at`,
      { userId, accountId, text, html },
      tx,
    );
    return toRecord(row!);
  }
}
