import { randomBytes } from 'node:crypto';
import { Transaction } from 'sequelize';
import type { Bind, Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';
import { DRAFT_NAMES_ADDRESS, EMAILS_OF_ADDRESS, SCHEDULED_NAMES_ADDRESS } from './erasure-repository.js';

/** Rows fetched from a cursor at a time: emails carry their text, so this bounds the export's memory. */
const FETCH_ROWS = 100;

export interface ExportAccountRow {
  id: string;
  email: string;
  owner: string;
  members: Array<{ username: string; role: string; canRead: boolean; canSend: boolean }>;
}

/**
 * What an access request answers, read from one snapshot (REPEATABLE READ, read only) through
 * server-side cursors: however much mail an address has, the process holds one batch of rows at a time.
 */
export class ExportRepository {
  constructor(private readonly sql: Sql) {}

  /** Every file of one export sees the same moment; nothing is written. */
  snapshot<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.sql.sequelize.transaction({ isolationLevel: Transaction.ISOLATION_LEVELS.REPEATABLE_READ }, async (tx) => {
      await this.sql.execute('SET TRANSACTION READ ONLY', {}, tx);
      // A reader that stops reading (a stalled download) must not hold a connection and an old
      // snapshot (which keeps VACUUM from cleaning) for ever: PostgreSQL ends the session after a minute.
      await this.sql.execute("SET LOCAL idle_in_transaction_session_timeout = '60s'", {}, tx);
      return work(tx);
    });
  }

  /** The accounts that hold something of the address, with the users who may see them (owner and shares). */
  accounts(address: string, tx: Tx): AsyncGenerator<ExportAccountRow> {
    return this.cursor<ExportAccountRow>(
      `SELECT a.id, a.email, o.username AS owner,
              COALESCE((SELECT json_agg(json_build_object('username', u.username, 'role', m.role, 'canRead', m.can_read, 'canSend', m.can_send)
                                        ORDER BY u.username)
                          FROM email_account_members m JOIN users u ON u.id = m.user_id WHERE m.email_account_id = a.id), '[]') AS members
         FROM email_accounts a JOIN users o ON o.id = a.user_id
        WHERE a.id IN (SELECT e.email_account_id FROM emails e WHERE e.id IN (${EMAILS_OF_ADDRESS('')}))
           OR EXISTS (SELECT 1 FROM contacts c WHERE c.user_id = a.user_id AND c.email_account_id = a.id AND c.email = $address)
           OR EXISTS (SELECT 1 FROM contact_suppressions s WHERE s.email_account_id = a.id AND s.email = $address)
        ORDER BY a.email, a.id`,
      { address },
      tx,
    );
  }

  /** The address's contact in each account, with the staff's notes on it (phone, title and tags too) and their follow-ups of it (with their notes). */
  contacts(address: string, tx: Tx): AsyncGenerator<Record<string, unknown>> {
    return this.cursor(
      `SELECT c.id, c.email_account_id AS "emailAccountId", a.email AS "emailAccount", c.email, c.name, c.notes, c.phone, c.title, c.tags,
              c.added_at AS "addedAt", c.last_email_at AS "lastEmailAt", c.created_at AS "createdAt", c.updated_at AS "updatedAt",
              COALESCE((SELECT json_agg(json_build_object('username', u.username, 'dueAt', f.due_at, 'note', f.note,
                                                          'createdAt', f.created_at, 'updatedAt', f.updated_at) ORDER BY f.due_at, f.id)
                          FROM follow_ups f JOIN users u ON u.id = f.user_id WHERE f.contact_id = c.id), '[]') AS "followUps"
         FROM email_accounts a JOIN contacts c ON c.user_id = a.user_id AND c.email_account_id = a.id AND c.email = $address
        ORDER BY a.email, c.id`,
      { address },
      tx,
    );
  }

  /**
   * The person record of the address (src/people; at most one): every field staff keep on it, its
   * company (id, domain, the name staff gave) and every address it has (the same person's others too).
   */
  people(address: string, tx: Tx): AsyncGenerator<Record<string, unknown>> {
    return this.cursor(
      `SELECT p.id, p.name, p.phone, p.title, p.tags, p.notes, p.created_at AS "createdAt", p.updated_at AS "updatedAt",
              (SELECT json_build_object('id', co.id, 'domain', co.domain, 'name', co.name) FROM companies co WHERE co.id = p.company_id) AS company,
              ARRAY(SELECT x.email FROM person_emails x WHERE x.person_id = p.id ORDER BY x.email) AS emails
         FROM person_emails pe JOIN people p ON p.id = pe.person_id WHERE pe.email = $address`,
      { address },
      tx,
    );
  }

  /**
   * The company of the address's domain (a contact of the address is filed under it, or was), with
   * what staff wrote on it, and how many other contacts are filed there (issue 52, finding 4).
   * `domain` is null for a free-mail address: no company.
   */
  companies(address: string, domain: string | null, tx: Tx): AsyncGenerator<Record<string, unknown>> {
    return this.cursor(
      `SELECT co.id, co.domain, co.name, co.notes, co.registration_number AS "registrationNumber", co.vat_id AS "vatId", co.address,
              co.phone, co.website, co.created_at AS "createdAt", co.updated_at AS "updatedAt",
              (SELECT count(*)::int FROM contacts k WHERE k.company_id = co.id AND k.email <> $address) AS "otherContacts"
         FROM companies co WHERE co.domain = $domain`,
      { address, domain },
      tx,
    );
  }

  /** Accounts where a user deleted the contact and asked the sync not to bring it back. */
  contactSuppressions(address: string, tx: Tx): AsyncGenerator<Record<string, unknown>> {
    return this.cursor(
      `SELECT s.email_account_id AS "emailAccountId", a.email AS "emailAccount", s.created_at AS "createdAt"
         FROM contact_suppressions s JOIN email_accounts a ON a.id = s.email_account_id WHERE s.email = $address ORDER BY a.email`,
      { address },
      tx,
    );
  }

  /** Every email the address took part in: headers, text and the names and sizes of attachments (never their content). */
  emails(address: string, tx: Tx): AsyncGenerator<Record<string, unknown>> {
    return this.cursor(
      `SELECT e.id, e.email_account_id AS "emailAccountId", a.email AS "emailAccount", e.message_id AS "messageId",
              e.thread_id AS "threadId", e.in_reply_to AS "inReplyTo", e."from", e."to", e.addresses, e.participants, e.subject,
              e.date, e.is_read AS "isRead", e.body AS text,
              COALESCE((SELECT json_agg(json_build_object('name', t.name, 'type', t.type, 'size', t.size, 'inline', t.is_inline) ORDER BY t.position)
                          FROM email_attachments t WHERE t.email_id = e.id), '[]') AS attachments
         FROM emails e JOIN email_accounts a ON a.id = e.email_account_id
        WHERE e.id IN (${EMAILS_OF_ADDRESS('')})
        ORDER BY a.email, e.date, e.id`,
      { address },
      tx,
    );
  }

  /**
   * The tasks about the address's person (linked to the person, or to a company of their own domain
   * no other address is filed under: the tasks an erasure deletes), with who gave and who has them.
   */
  tasks(address: string, tx: Tx): AsyncGenerator<Record<string, unknown>> {
    return this.cursor(
      `SELECT t.id, t.title, t.due_at AS "dueAt", t.status, t.completed_at AS "completedAt", a.username AS assignee, cr.username AS "createdBy",
              CASE WHEN t.person_id IS NOT NULL THEN 'person' ELSE 'company' END AS "linkedTo", t.created_at AS "createdAt", t.updated_at AS "updatedAt"
         FROM tasks t JOIN users a ON a.id = t.assignee_id LEFT JOIN users cr ON cr.id = t.created_by
        WHERE t.person_id IN (SELECT pe.person_id FROM person_emails pe WHERE pe.email = $address)
           OR t.company_id IN (SELECT co.id FROM companies co WHERE co.domain = lower(split_part($address, '@', 2))
                                  AND NOT EXISTS (SELECT 1 FROM contacts c WHERE c.company_id = co.id AND c.email <> $address))
        ORDER BY t.created_at, t.id`,
      { address },
      tx,
    );
  }

  /** Drafts the staff began to write to the address (unsent), with their author. */
  drafts(address: string, tx: Tx): AsyncGenerator<Record<string, unknown>> {
    return this.cursor(
      `SELECT d.id, d.email_account_id AS "emailAccountId", a.email AS "emailAccount", u.username AS author, d.to_recipients AS "to",
              d.cc_recipients AS cc, d.bcc_recipients AS bcc, d.subject, d.text, d.created_at AS "createdAt", d.updated_at AS "updatedAt"
         FROM email_drafts d JOIN email_accounts a ON a.id = d.email_account_id JOIN users u ON u.id = d.user_id
        WHERE ${DRAFT_NAMES_ADDRESS('d')} ORDER BY d.created_at, d.id`,
      { address },
      tx,
    );
  }

  /** Sends scheduled for later to or about the address (what an erasure deletes), with their author. */
  scheduledEmails(address: string, tx: Tx): AsyncGenerator<Record<string, unknown>> {
    return this.cursor(
      `SELECT s.id, s.email_account_id AS "emailAccountId", a.email AS "emailAccount", u.username AS author, s.kind, s.status,
              s.send_at AS "sendAt", s.sent_at AS "sentAt", s.request->'to' AS "to", s.request->'cc' AS cc, s.request->'bcc' AS bcc,
              s.request->>'subject' AS subject, s.request->>'text' AS text, s.created_at AS "createdAt"
         FROM scheduled_emails s LEFT JOIN email_accounts a ON a.id = s.email_account_id JOIN users u ON u.id = s.user_id
        WHERE ${SCHEDULED_NAMES_ADDRESS('s')} ORDER BY s.created_at, s.id`,
      { address },
      tx,
    );
  }

  /** The staff's internal comments on the conversations the address took part in (they may be about the person). */
  conversationComments(address: string, tx: Tx): AsyncGenerator<Record<string, unknown>> {
    return this.cursor(
      `SELECT cc.id, t.email_account_id AS "emailAccountId", a.email AS "emailAccount", cc.conversation_id AS "conversationId",
              u.username AS author, cc.text, cc.created_at AS "createdAt"
         FROM email_threads t JOIN conversation_comments cc ON cc.conversation_id = t.id JOIN email_accounts a ON a.id = t.email_account_id
         LEFT JOIN users u ON u.id = cc.author_id
        WHERE (t.email_account_id, t.thread_id) IN (SELECT e.email_account_id, e.thread_id FROM emails e WHERE e.id IN (${EMAILS_OF_ADDRESS('')}))
        ORDER BY a.email, cc.created_at, cc.id`,
      { address },
      tx,
    );
  }

  /** Audit records that name the address (a contact added or deleted by hand). */
  auditRecords(address: string, tx: Tx): AsyncGenerator<Record<string, unknown>> {
    return this.cursor(
      `SELECT id::text, action, username, actor, created_at AS "createdAt", details FROM audit_logs
        WHERE action IN ('contact.created', 'contact.deleted') AND lower(details->>'email') = $address ORDER BY created_at, id`,
      { address },
      tx,
    );
  }

  /** A server-side cursor inside the snapshot, read FETCH_ROWS rows at a time and closed when done. */
  private async *cursor<T extends object>(query: string, bind: Bind, tx: Tx): AsyncGenerator<T> {
    const name = `privacy_${randomBytes(6).toString('hex')}`;
    await this.sql.execute(`DECLARE ${name} NO SCROLL CURSOR FOR ${query}`, bind, tx);
    try {
      for (;;) {
        const rows = await this.sql.select<T>(`FETCH ${FETCH_ROWS} FROM ${name}`, {}, tx);
        yield* rows;
        if (rows.length < FETCH_ROWS) return;
      }
    } finally {
      await this.sql.execute(`CLOSE ${name}`, {}, tx).catch(() => undefined);
    }
  }
}
