/**
 * Emails and contacts as the sync writes them, in bulk, inside the batch's transaction. Every
 * statement covers the whole batch, and a batch whose people are all known already costs one lookup
 * and one update. Upserts are keyed on (email_account_id, jmap_id) and (user_id, email_account_id,
 * email), so replaying a batch after a crash changes nothing. Contacts: correspondents become
 * contacts unless the user deleted them (contact_suppressions); an existing contact keeps its name
 * and notes.
 */
import { companyIdOfDomain, ensureCompanies } from '../companies/company-assignment.js';
import { linkEarlierEmails, recomputeLastEmailAt } from '../contacts/contact-mail-links.js';
import type { Sql } from '../db/sql.js';
import { lockAccountOwner } from '../email-accounts/account-owner-lock.js';
import type { Tx } from '../db/transactions.js';
import type { Correspondent, MappedAttachment, MappedEmail } from './email-mapper.js';

export interface AccountRef {
  id: string;
  userId: string;
}

export interface KnownAddress {
  /** The user deleted this contact: it must not come back. */
  suppressed: boolean;
  contactId: string | null;
  hasName: boolean;
}

export interface UpsertedContact {
  id: string;
  email: string;
  inserted: boolean;
}

export interface EmailRow {
  mapped: MappedEmail;
  /** The main correspondent. */
  contactId: string;
  /** Every contact that took part, the main one included. */
  contactIds: string[];
}

/** A row as upsertEmails left it (only what the caller needs: every returned column is parsed in JS). */
interface StoredEmail {
  id: string;
  jmap_id: string;
  inserted: boolean;
}

export interface UpsertOptions {
  /** No row of the batch can exist yet (a mailbox's first sync): plain INSERTs. */
  allNew?: boolean;
  /** A full sync is under way: the rows kept go into full_sync_seen (its sweep spares them). */
  recordSeen?: boolean;
}

export interface Removed {
  deleted: number;
  /** Contacts that lost an email (their last_email_at is stale). */
  contactIds: string[];
}

/**
 * A row already stored under the JMAP id is refreshed in what can change for it: a JMAP email is
 * immutable (RFC 8621 §4.1) except its keywords and mailboxes, so only the read state and the contact it
 * is filed under are written, and the small columns of migration 0020 (filled
 * in for rows stored before it; they are not indexed and live in the row, so they cost no TOAST). Rewriting the other columns made every
 * re-upsert a non-HOT update that copied the body's TOAST again (docs/adr/0100). is_read follows the
 * server except where the CRM changed it and has not told the server yet (read_pending). participants
 * is refreshed only when its set of addresses changed (a row stored before Sender, Reply-To and Bcc
 * counted, ADR 0114): the same set keeps the stored value, so the update stays HOT.
 * A row that would stay exactly as it is is not written at all (the WHERE of DO UPDATE): no new row
 * version, no index entries, no WAL, no event trigger row (an incremental sync seeing a page again, a
 * replayed batch, a sent email the next sync finds, a full resync of an unchanged mailbox: what a full
 * sync has seen is kept in full_sync_seen, not in the row; docs/adr/0123). A column stored NULL that the mail now fills
 * (addresses of rows from before migration 0020) differs, so that row is written.
 */
const REFRESHED: Array<[column: string, value: string]> = [
  ['contact_id', 'EXCLUDED.contact_id'],
  ['has_attachments', 'EXCLUDED.has_attachments'],
  ['outbound', 'EXCLUDED.outbound'],
  ['addresses', 'COALESCE(emails.addresses, EXCLUDED.addresses)'],
  [
    'participants',
    `CASE WHEN emails.participants @> EXCLUDED.participants AND emails.participants <@ EXCLUDED.participants
            THEN emails.participants ELSE EXCLUDED.participants END`,
  ],
  ['is_read', 'CASE WHEN emails.read_pending THEN emails.is_read ELSE EXCLUDED.is_read END'],
];

const UPSERT_EMAIL = (() => {
  const refreshed = REFRESHED;
  return `ON CONFLICT (email_account_id, jmap_id) DO UPDATE SET
              ${refreshed.map(([column, value]) => `${column} = ${value}`).join(',\n              ')},
              updated_at = CASE WHEN (NOT emails.read_pending AND emails.is_read <> EXCLUDED.is_read)
                                  OR emails.contact_id <> EXCLUDED.contact_id
                                THEN now() ELSE emails.updated_at END
            WHERE (${refreshed.map(([column]) => `emails.${column}`).join(', ')})
                  IS DISTINCT FROM (${refreshed.map(([, value]) => value).join(', ')})`;
})();

/**
 * The same test, before the INSERT: the page's row `v` would leave the stored row `x` exactly as it is.
 * Such rows are not offered to the INSERT at all, because ON CONFLICT DO UPDATE locks the conflicting
 * row before its WHERE is evaluated, and that lock is a write of its own (the tuple's xmax, a WAL
 * record, a full-page image after each checkpoint, the page's all-visible bit cleared): most of what a
 * full resync of an unchanged mailbox still wrote (docs/adr/0123). A row changed concurrently after the
 * statement's snapshot is left as that writer left it, as if the sync had run a moment earlier.
 */
const STORED_UNCHANGED = (() => {
  const asRead = (sql: string) => sql.replace(/EXCLUDED\./g, 'v.').replace(/emails\./g, 'x.');
  return `(${REFRESHED.map(([column]) => `x.${column}`).join(', ')})
                  IS NOT DISTINCT FROM (${REFRESHED.map(([, value]) => asRead(value)).join(', ')})`;
})();

export class MailStoreRepository {
  constructor(private readonly sql: Sql) {}

  /** What the database knows about each address: suppressed, and the contact if there is one. */
  async lookupAddresses(account: AccountRef, addresses: string[], tx?: Tx): Promise<Map<string, KnownAddress>> {
    if (addresses.length === 0) return new Map();
    const rows = await this.sql.select<{ email: string; suppressed: boolean; id: string | null; has_name: boolean }>(
      `SELECT v.email, s.email IS NOT NULL AS suppressed, c.id, c.name IS NOT NULL AS has_name
         FROM unnest($addresses::text[]) AS v(email)
         LEFT JOIN contact_suppressions s ON s.email_account_id = $accountId AND s.email = v.email
         LEFT JOIN contacts c ON c.user_id = $userId AND c.email_account_id = $accountId AND c.email = v.email`,
      { userId: account.userId, accountId: account.id, addresses },
      tx,
    );
    return new Map(rows.map((r) => [r.email, { suppressed: r.suppressed, contactId: r.id, hasName: r.has_name }]));
  }

  /**
   * INSERT ... ON CONFLICT on (user_id, email_account_id, email): a new contact gets the name from
   * the mail, an existing one keeps its own and only fills a missing one.
   */
  async upsertContacts(account: AccountRef, people: Correspondent[], tx?: Tx): Promise<UpsertedContact[]> {
    if (people.length === 0) return [];
    // The companies of their domains first, in a statement of their own (company-assignment.ts).
    const domainOf = await ensureCompanies(
      this.sql,
      people.map((p) => p.email),
      tx,
    );
    // Sorted: concurrent writers then lock rows in the same order.
    const rows = [...people].sort((a, b) => (a.email < b.email ? -1 : 1)).map((p) => ({ email: p.email, name: p.name, domain: domainOf.get(p.email) ?? null }));
    return this.sql.select<UpsertedContact>(
      `INSERT INTO contacts (user_id, email_account_id, email, name, company_id)
       SELECT $userId, $accountId, v.email, v.name, ${companyIdOfDomain('v.domain')} FROM jsonb_to_recordset($people::jsonb) AS v(email text, name text, domain text)
       ON CONFLICT (user_id, email_account_id, email) DO UPDATE
          SET name = COALESCE(contacts.name, EXCLUDED.name),
              company_id = COALESCE(contacts.company_id, EXCLUDED.company_id),
              updated_at = CASE WHEN contacts.name IS NULL AND EXCLUDED.name IS NOT NULL THEN now() ELSE contacts.updated_at END
       RETURNING id, email, (xmax = 0) AS inserted`,
      { userId: account.userId, accountId: account.id, people: JSON.stringify(rows) },
      tx,
    );
  }

  /**
   * Links new contacts to the emails they already took part in (stored earlier because of someone
   * else), so an email shows under every contact regardless of the order mail was synced in, and
   * moves each contact's last_email_at forward (contact-mail-links.ts). Those this batch linked
   * already are left out.
   */
  linkEarlierEmails(contactIds: string[], tx?: Tx): Promise<void> {
    return linkEarlierEmails(this.sql, contactIds, tx);
  }

  /** After emails were removed: last_email_at = what is left (NULL when nothing is). */
  recomputeLastEmailAt(contactIds: string[], tx?: Tx): Promise<void> {
    return recomputeLastEmailAt(this.sql, contactIds, tx);
  }

  /**
   * Inserts or refreshes the rows, links them to their contacts and moves those contacts'
   * last_email_at forward, in one statement (one round trip per page: the sync's pages wait on them);
   * answers the rows stored and the JMAP ids of those that are new. The links carry the stored
   * email's date and read state (read_pending kept), so no trigger looks them up.
   * is_read follows the server except where the CRM changed it and has not told the server yet
   * (read_pending). A second copy of a message already stored under another JMAP id (same
   * Message-ID, e.g. the Sent copy of mail to oneself) is skipped: one row per message.
   */
  async upsertEmails(
    account: AccountRef,
    all: EmailRow[],
    tx?: Tx,
    { allNew = false, recordSeen = false }: UpsertOptions = {},
  ): Promise<{ stored: EmailRow[]; inserted: number; insertedIds: string[] }> {
    const rows = firstPerMessageId(all);
    if (rows.length === 0) return { stored: [], inserted: 0, insertedIds: [] };
    const payload = rows.map(({ mapped: m, contactId, contactIds }, i) => ({
      i: i + 1,
      contact_id: contactId,
      jmap_id: m.jmapId,
      message_id: m.messageId,
      thread_id: m.threadId,
      in_reply_to: m.inReplyTo,
      from: m.from,
      to: m.to,
      subject: m.subject,
      is_read: m.isRead,
      date: m.date?.toISOString() ?? null,
      participants: m.participants,
      contact_ids: contactIds,
      has_attachments: m.hasAttachments,
      addresses: m.addresses,
      outbound: m.outbound,
    }));
    // The bodies travel as a text[] beside the JSON (payload.i is the position in it): parsing them
    // as JSON was most of the statement when the rows already exist and only need a look (a full
    // resync; docs/adr/0123), and a text[] costs far less to read than a jsonb document.
    // allNew: the caller knows no row of this batch can exist yet (a mailbox's first sync). Plain
    // INSERTs (emails and links) then skip the speculative insertion (arbiter probe, confirm record)
    // ON CONFLICT costs per row; if another writer stored one meanwhile, the unique key refuses it and
    // the caller redoes the batch.
    const stored = await this.sql.select<StoredEmail>(
      `WITH v AS (
         SELECT * FROM jsonb_to_recordset($payload::jsonb) AS v(contact_id uuid, jmap_id text, message_id text, thread_id text,
                i int, in_reply_to text, "from" text, "to" text, subject text, is_read boolean, date timestamptz,
                participants text[], contact_ids uuid[], has_attachments boolean, addresses jsonb, outbound boolean)),
       -- Rows of this account holding one of these Message-IDs under another JMAP id: one probe per email
       -- of the unique (message_id, email_account_id) index (migration 0014), whatever the statistics
       -- say. As a join the planner was free to read all of the account's rows (along one of its other
       -- indexes) or the whole table and filter them, per page, which it did while the table had no
       -- statistics (a new installation before autovacuum's first ANALYZE): a cost that grows with the
       -- mailbox on every page. LIMIT 1 keeps the sub-query a probe. The account is a sub-select so that the planner estimates an
       -- average account: with the literal id of an account its statistics do not know yet, it guessed
       -- one row and could scan the account's date index once per email instead.
       duplicate AS (
         SELECT v.jmap_id FROM v CROSS JOIN LATERAL (
           SELECT 1 FROM emails x
            WHERE x.message_id = v.message_id AND x.email_account_id = (SELECT $accountId::uuid) AND x.jmap_id <> v.jmap_id
            LIMIT 1) AS found),
       stored AS (
         INSERT INTO emails (user_id, email_account_id, contact_id, jmap_id, message_id, thread_id, in_reply_to,
                             "from", "to", subject, body, is_read, date, participants, has_attachments, addresses, outbound)
         SELECT $userId, $accountId, v.contact_id, v.jmap_id, v.message_id, v.thread_id, v.in_reply_to,
                v."from", v."to", v.subject, ($bodies::text[])[v.i], v.is_read, v.date, v.participants, v.has_attachments, v.addresses, v.outbound
           FROM v
          WHERE v.jmap_id NOT IN (SELECT jmap_id FROM duplicate)
            ${allNew ? '' : `AND NOT EXISTS (SELECT 1 FROM emails x WHERE x.email_account_id = $accountId::uuid AND x.jmap_id = v.jmap_id AND ${STORED_UNCHANGED})`}
         ${allNew ? '' : UPSERT_EMAIL}
         RETURNING id, jmap_id, date, is_read, (xmax = 0) AS inserted),
       -- Rows the upsert left as they were (nothing to change) return nothing from it: they are read as
       -- they stand (the statement's snapshot, from before it, is exactly that) and are stored all the same.
       unchanged AS (
         SELECT x.id, x.jmap_id, x.date, x.is_read, false AS inserted FROM v
           JOIN emails x ON x.email_account_id = $accountId::uuid AND x.jmap_id = v.jmap_id
          WHERE ${allNew ? 'false' : 'true'} AND v.jmap_id NOT IN (SELECT jmap_id FROM duplicate) AND v.jmap_id NOT IN (SELECT jmap_id FROM stored)),
       kept AS (SELECT * FROM stored UNION ALL SELECT * FROM unchanged),
       -- A full sync in progress: every row kept is one it has seen (or one stored meanwhile), spared by its sweep.
       seen AS (
         INSERT INTO full_sync_seen (email_account_id, jmap_id) SELECT $accountId, jmap_id FROM kept WHERE $recordSeen::boolean
         ON CONFLICT DO NOTHING),
       links AS (
         SELECT s.id AS email_id, l.contact_id, s.date, s.is_read FROM kept s JOIN v ON v.jmap_id = s.jmap_id
          CROSS JOIN LATERAL unnest(v.contact_ids) AS l(contact_id)),
       linked AS (
         INSERT INTO email_contacts (email_id, contact_id, email_date, is_read) SELECT * FROM links
         ${allNew ? '' : 'ON CONFLICT DO NOTHING'}),
       advanced AS (
         UPDATE contacts c SET last_email_at = n.newest
           FROM (SELECT contact_id, max(date) AS newest FROM links WHERE date IS NOT NULL GROUP BY contact_id) n
          WHERE c.id = n.contact_id AND (c.last_email_at IS NULL OR c.last_email_at < n.newest))
       SELECT id, jmap_id, inserted FROM kept`,
      {
        userId: account.userId,
        accountId: account.id,
        payload: JSON.stringify(payload),
        bodies: rows.map(({ mapped }) => mapped.body),
        recordSeen,
      },
      tx,
    );
    const storedByJmapId = new Map(stored.map((r) => [r.jmap_id, r]));
    await this.insertAttachments(rows, storedByJmapId, tx);
    const insertedIds = stored.filter((r) => r.inserted).map((r) => r.jmap_id);
    return { stored: rows.filter((r) => storedByJmapId.has(r.mapped.jmapId)), inserted: insertedIds.length, insertedIds };
  }

  /**
   * Attachment metadata of the stored rows. An email's parts never change (its id derives from its
   * content), so rows already there stay as they are: a replayed batch inserts nothing twice, and
   * mail stored before attachments were recorded gets them when the sync next sees it.
   */
  private async insertAttachments(rows: EmailRow[], storedByJmapId: Map<string, StoredEmail>, tx?: Tx): Promise<void> {
    const payload = rows.flatMap(({ mapped }) => {
      const emailId = storedByJmapId.get(mapped.jmapId)?.id;
      return emailId ? (mapped.attachments ?? []).map((a) => ({ email_id: emailId, ...attachmentColumns(a) })) : [];
    });
    if (payload.length === 0) return;
    await this.sql.execute(
      `INSERT INTO email_attachments (email_id, position, blob_id, part_id, name, type, size, disposition, cid, is_inline)
       SELECT v.email_id, v.position, v.blob_id, v.part_id, v.name, v.type, v.size, v.disposition, v.cid, v.is_inline
         FROM jsonb_to_recordset($payload::jsonb) AS v(email_id uuid, position int, blob_id text, part_id text, name text,
              type text, size bigint, disposition text, cid text, is_inline boolean)
       ON CONFLICT (email_id, position) DO NOTHING`,
      { payload: JSON.stringify(payload) },
      tx,
    );
  }

  async hasEmails(accountId: string, tx?: Tx): Promise<boolean> {
    const row = await this.sql.one<{ any: boolean }>('SELECT EXISTS (SELECT 1 FROM emails WHERE email_account_id = $accountId) AS any', { accountId }, tx);
    return row!.any;
  }

  /** The account's owner, locked against a hand-over (account-owner-lock.ts). */
  lockOwner(accountId: string, tx: Tx): Promise<string | undefined> {
    return lockAccountOwner(this.sql, accountId, tx);
  }

  /**
   * Whether a full sync of the account is under way (begun, not finished; maybe interrupted): a row
   * written outside it (a sent email) is then marked seen, so that its sweep spares it.
   */
  async fullSyncInProgress(accountId: string, tx?: Tx): Promise<boolean> {
    const row = await this.sql.one<{ on: boolean }>('SELECT full_sync_checkpoint IS NOT NULL AS on FROM mail_sync_states WHERE email_account_id = $accountId', { accountId }, tx);
    return row?.on ?? false;
  }

  async emailIdByJmapId(accountId: string, jmapId: string, tx?: Tx): Promise<string | null> {
    const row = await this.sql.one<{ id: string }>('SELECT id FROM emails WHERE email_account_id = $accountId AND jmap_id = $jmapId', { accountId, jmapId }, tx);
    return row?.id ?? null;
  }

  /** Deletes rows by JMAP id. */
  deleteEmailsByJmapIds(accountId: string, jmapIds: string[], tx?: Tx): Promise<Removed> {
    if (jmapIds.length === 0) return Promise.resolve({ deleted: 0, contactIds: [] });
    return this.deleteEmailsWhere(accountId, 'jmap_id = ANY($value::text[])', jmapIds, tx);
  }

  /**
   * After a full sync: rows it did not see are gone from the server or out of reach (Trash, Junk,
   * Drafts). Deleted, and what it saw is forgotten.
   */
  async sweepUnseen(accountId: string, tx?: Tx): Promise<Removed> {
    const removed = await this.deleteEmailsWhere(
      accountId,
      'NOT EXISTS (SELECT 1 FROM full_sync_seen f WHERE f.email_account_id = $accountId AND f.jmap_id = emails.jmap_id)',
      null,
      tx,
    );
    await this.forgetSeen(accountId, tx);
    return removed;
  }

  /** What a full sync saw: cleared when it ends, and when a new one begins (ids a late writer added after the sweep). */
  async forgetSeen(accountId: string, tx?: Tx): Promise<void> {
    await this.sql.execute('DELETE FROM full_sync_seen WHERE email_account_id = $accountId', { accountId }, tx);
  }

  private async deleteEmailsWhere(accountId: string, condition: string, value: unknown, tx?: Tx): Promise<Removed> {
    const doomed = await this.sql.select<{ id: string }>(`SELECT id FROM emails WHERE email_account_id = $accountId AND ${condition}`, { accountId, value }, tx);
    if (doomed.length === 0) return { deleted: 0, contactIds: [] };
    const ids = doomed.map((r) => r.id);
    const contacts = await this.sql.select<{ contact_id: string }>('SELECT DISTINCT contact_id FROM email_contacts WHERE email_id = ANY($ids::uuid[])', { ids }, tx);
    const deleted = await this.sql.execute('DELETE FROM emails WHERE id = ANY($ids::uuid[])', { ids }, tx);
    return { deleted, contactIds: contacts.map((r) => r.contact_id) };
  }
}

function attachmentColumns(a: MappedAttachment) {
  return { position: a.position, blob_id: a.blobId, part_id: a.partId, name: a.name, type: a.type, size: a.size, disposition: a.disposition, cid: a.cid, is_inline: a.inline };
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
