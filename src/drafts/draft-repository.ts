import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';
import type { Recipient } from '../sending/compose.js';
import { offsetOf, type Page, type PageRequest } from '../shared/pagination.js';

export interface DraftFields {
  emailAccountId: string;
  replyToEmailId: string | null;
  to: Recipient[];
  cc: Recipient[];
  bcc: Recipient[];
  subject: string;
  text: string;
  html: string | null;
}

export interface DraftRecord extends DraftFields {
  id: string;
  createdAt: Date;
  updatedAt: Date;
}

interface DraftRow {
  id: string;
  email_account_id: string;
  reply_to_email_id: string | null;
  to_recipients: Recipient[];
  cc_recipients: Recipient[];
  bcc_recipients: Recipient[];
  subject: string;
  text: string;
  html: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, email_account_id, reply_to_email_id, to_recipients, cc_recipients, bcc_recipients, subject, text, html, created_at, updated_at';

const toRecord = (r: DraftRow): DraftRecord => ({
  id: r.id,
  emailAccountId: r.email_account_id,
  replyToEmailId: r.reply_to_email_id,
  to: r.to_recipients,
  cc: r.cc_recipients,
  bcc: r.bcc_recipients,
  subject: r.subject,
  text: r.text,
  html: r.html,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const binds = (f: DraftFields) => ({
  emailAccountId: f.emailAccountId,
  replyToEmailId: f.replyToEmailId,
  to: JSON.stringify(f.to),
  cc: JSON.stringify(f.cc),
  bcc: JSON.stringify(f.bcc),
  subject: f.subject,
  text: f.text,
  html: f.html,
});

/** email_drafts (migrations/0042): every query is scoped by the author, so another user's id finds nothing. */
export class DraftRepository {
  constructor(private readonly sql: Sql) {}

  async list(userId: string, page: PageRequest): Promise<Page<DraftRecord>> {
    const rows = await this.sql.select<DraftRow>(`SELECT ${COLUMNS} FROM email_drafts WHERE user_id = $userId ORDER BY updated_at DESC, id LIMIT $limit OFFSET $offset`, {
      userId,
      limit: page.limit,
      offset: offsetOf(page),
    });
    const count = await this.sql.one<{ total: number }>('SELECT count(*)::int AS total FROM email_drafts WHERE user_id = $userId', { userId });
    return { items: rows.map(toRecord), total: count?.total ?? 0 };
  }

  /** `lock`: FOR UPDATE in `tx` (changes to its files wait for each other). */
  async find(userId: string, id: string, tx?: Tx, lock = false): Promise<DraftRecord | undefined> {
    const row = await this.sql.one<DraftRow>(`SELECT ${COLUMNS} FROM email_drafts WHERE id = $id AND user_id = $userId${lock ? ' FOR UPDATE' : ''}`, { userId, id }, tx);
    return row && toRecord(row);
  }

  async insert(userId: string, f: DraftFields, tx?: Tx): Promise<DraftRecord> {
    const row = await this.sql.one<DraftRow>(
      `INSERT INTO email_drafts (user_id, email_account_id, reply_to_email_id, to_recipients, cc_recipients, bcc_recipients, subject, text, html)
       VALUES ($userId, $emailAccountId, $replyToEmailId, $to::jsonb, $cc::jsonb, $bcc::jsonb, $subject, $text, $html) RETURNING ${COLUMNS}`,
      { userId, ...binds(f) },
      tx,
    );
    return toRecord(row!);
  }

  /** Replaces the draft's fields; undefined when it is not the user's (or gone). */
  async update(userId: string, id: string, f: DraftFields, tx?: Tx): Promise<DraftRecord | undefined> {
    const row = await this.sql.one<DraftRow>(
      `UPDATE email_drafts SET email_account_id = $emailAccountId, reply_to_email_id = $replyToEmailId, to_recipients = $to::jsonb,
              cc_recipients = $cc::jsonb, bcc_recipients = $bcc::jsonb, subject = $subject, text = $text, html = $html, updated_at = now()
        WHERE id = $id AND user_id = $userId RETURNING ${COLUMNS}`,
      { userId, id, ...binds(f) },
      tx,
    );
    return row && toRecord(row);
  }

  remove(userId: string, id: string, tx?: Tx): Promise<number> {
    return this.sql.execute('DELETE FROM email_drafts WHERE id = $id AND user_id = $userId', { userId, id }, tx);
  }
}
