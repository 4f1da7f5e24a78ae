/**
 * Email rows and their contact links, in bulk, inside the batch's transaction. Upserts are keyed on
 * (email_account_id, jmap_id), so replaying a batch after a crash changes nothing.
 */
import type { Sequelize, Transaction } from 'sequelize';
import type { AccountRef } from './contact-upserter.js';
import type { MappedEmail } from './email-mapper.js';
import { execute, selectRows } from './sql.js';

export interface EmailRow {
  mapped: MappedEmail;
  /** The main correspondent. */
  contactId: string;
  /** Every contact that took part, the main one included. */
  contactIds: string[];
}

export class EmailWriter {
  constructor(
    private readonly sequelize: Sequelize,
    private readonly account: AccountRef,
    private readonly transaction: Transaction,
  ) {}

  /**
   * Inserts or refreshes the rows and links them to their contacts; answers the rows stored.
   * is_read follows the server except where the CRM changed it and has not told the server yet
   * (read_pending). A second copy of a message already stored under another JMAP id (same
   * Message-ID, e.g. the Sent copy of mail to oneself) is skipped: one row per message.
   */
  async upsert(all: EmailRow[], generation: number): Promise<{ stored: EmailRow[]; inserted: number }> {
    const rows = firstPerMessageId(all);
    if (rows.length === 0) return { stored: [], inserted: 0 };
    const payload = rows.map(({ mapped: m, contactId }) => ({
      contact_id: contactId,
      jmap_id: m.jmapId,
      message_id: m.messageId,
      thread_id: m.threadId,
      in_reply_to: m.inReplyTo,
      from: m.from,
      to: m.to,
      subject: m.subject,
      body: m.body,
      is_read: m.isRead,
      date: m.date?.toISOString() ?? null,
      participants: m.participants,
    }));
    const stored = await selectRows<{ id: string; jmap_id: string; inserted: boolean }>(
      this.sequelize,
      `INSERT INTO emails (user_id, email_account_id, contact_id, jmap_id, message_id, thread_id, in_reply_to,
                           "from", "to", subject, body, is_read, date, participants, sync_generation)
       SELECT $1, $2, v.contact_id, v.jmap_id, v.message_id, v.thread_id, v.in_reply_to,
              v."from", v."to", v.subject, v.body, v.is_read, v.date, v.participants, $4
         FROM jsonb_to_recordset($3::jsonb) AS v(contact_id uuid, jmap_id text, message_id text, thread_id text,
              in_reply_to text, "from" text, "to" text, subject text, body text, is_read boolean, date timestamptz,
              participants text[])
        WHERE v.message_id IS NULL OR NOT EXISTS
              (SELECT 1 FROM emails x WHERE x.email_account_id = $2 AND x.message_id = v.message_id AND x.jmap_id <> v.jmap_id)
       ON CONFLICT (email_account_id, jmap_id) DO UPDATE SET
              contact_id = EXCLUDED.contact_id, message_id = EXCLUDED.message_id, thread_id = EXCLUDED.thread_id,
              in_reply_to = EXCLUDED.in_reply_to, "from" = EXCLUDED."from", "to" = EXCLUDED."to",
              subject = EXCLUDED.subject, body = EXCLUDED.body, date = EXCLUDED.date,
              participants = EXCLUDED.participants, sync_generation = EXCLUDED.sync_generation,
              is_read = CASE WHEN emails.read_pending THEN emails.is_read ELSE EXCLUDED.is_read END,
              updated_at = CASE WHEN (NOT emails.read_pending AND emails.is_read <> EXCLUDED.is_read)
                                  OR emails.contact_id <> EXCLUDED.contact_id
                                THEN now() ELSE emails.updated_at END
       RETURNING id, jmap_id, (xmax = 0) AS inserted`,
      [this.account.userId, this.account.id, JSON.stringify(payload), generation],
      this.transaction,
    );
    const idByJmapId = new Map(stored.map((r) => [r.jmap_id, r.id]));
    await this.link(rows, idByJmapId);
    return { stored: rows.filter((r) => idByJmapId.has(r.mapped.jmapId)), inserted: stored.filter((r) => r.inserted).length };
  }

  private async link(rows: EmailRow[], idByJmapId: Map<string, string>): Promise<void> {
    const emailIds: string[] = [];
    const contactIds: string[] = [];
    for (const row of rows) {
      const emailId = idByJmapId.get(row.mapped.jmapId);
      if (!emailId) continue;
      for (const contactId of row.contactIds) {
        emailIds.push(emailId);
        contactIds.push(contactId);
      }
    }
    if (emailIds.length === 0) return;
    await execute(
      this.sequelize,
      `INSERT INTO email_contacts (email_id, contact_id)
       SELECT * FROM unnest($1::uuid[], $2::uuid[]) ON CONFLICT DO NOTHING`,
      [emailIds, contactIds],
      this.transaction,
    );
  }

  /** Deletes rows by JMAP id; answers the contacts that lost an email (their last_email_at is stale). */
  deleteByJmapIds(jmapIds: string[]): Promise<{ deleted: number; contactIds: string[] }> {
    if (jmapIds.length === 0) return Promise.resolve({ deleted: 0, contactIds: [] });
    return this.deleteWhere('jmap_id = ANY($2::text[])', jmapIds);
  }

  /** After a full sync: rows it did not see again are gone from the server or out of reach. */
  deleteOlderGenerations(generation: number): Promise<{ deleted: number; contactIds: string[] }> {
    return this.deleteWhere('sync_generation < $2', generation);
  }

  private async deleteWhere(condition: string, value: unknown): Promise<{ deleted: number; contactIds: string[] }> {
    const doomed = await selectRows<{ id: string }>(
      this.sequelize,
      `SELECT id FROM emails WHERE email_account_id = $1 AND ${condition}`,
      [this.account.id, value],
      this.transaction,
    );
    if (doomed.length === 0) return { deleted: 0, contactIds: [] };
    const ids = doomed.map((r) => r.id);
    const contacts = await selectRows<{ contact_id: string }>(
      this.sequelize,
      'SELECT DISTINCT contact_id FROM email_contacts WHERE email_id = ANY($1::uuid[])',
      [ids],
      this.transaction,
    );
    const deleted = await execute(this.sequelize, 'DELETE FROM emails WHERE id = ANY($1::uuid[])', [ids], this.transaction);
    return { deleted, contactIds: contacts.map((r) => r.contact_id) };
  }
}

/** Two JMAP emails with one Message-ID in the same batch would break the unique index: keep the first. */
function firstPerMessageId(rows: EmailRow[]): EmailRow[] {
  const seen = new Set<string>();
  return rows.filter(({ mapped }) => {
    if (mapped.messageId === null) return true;
    if (seen.has(mapped.messageId)) return false;
    seen.add(mapped.messageId);
    return true;
  });
}
