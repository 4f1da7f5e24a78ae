/**
 * Contacts as the sync sees them: correspondents become contacts unless the user deleted them
 * (contact_suppressions); an existing contact keeps its name and notes. Every statement covers the
 * whole batch, and a batch whose people are all known already costs one lookup and one update.
 */
import type { Sequelize, Transaction } from 'sequelize';
import type { Correspondent } from './email-mapper.js';
import { execute, selectRows } from './sql.js';

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

export class ContactUpserter {
  constructor(
    private readonly sequelize: Sequelize,
    private readonly account: AccountRef,
    private readonly transaction: Transaction,
  ) {}

  /** What the database knows about each address: suppressed, and the contact if there is one. */
  async lookup(addresses: string[]): Promise<Map<string, KnownAddress>> {
    if (addresses.length === 0) return new Map();
    const rows = await selectRows<{ email: string; suppressed: boolean; id: string | null; has_name: boolean }>(
      this.sequelize,
      `SELECT v.email, s.email IS NOT NULL AS suppressed, c.id, c.name IS NOT NULL AS has_name
         FROM unnest($3::text[]) AS v(email)
         LEFT JOIN contact_suppressions s ON s.email_account_id = $2 AND s.email = v.email
         LEFT JOIN contacts c ON c.user_id = $1 AND c.email_account_id = $2 AND c.email = v.email`,
      [this.account.userId, this.account.id, addresses],
      this.transaction,
    );
    return new Map(rows.map((r) => [r.email, { suppressed: r.suppressed, contactId: r.id, hasName: r.has_name }]));
  }

  /**
   * INSERT ... ON CONFLICT on (user_id, email_account_id, email): a new contact gets the name from
   * the mail, an existing one keeps its own and only fills a missing one.
   */
  async upsert(people: Correspondent[]): Promise<UpsertedContact[]> {
    if (people.length === 0) return [];
    // Sorted: concurrent writers then lock rows in the same order.
    const rows = [...people].sort((a, b) => (a.email < b.email ? -1 : 1));
    return selectRows<UpsertedContact>(
      this.sequelize,
      `INSERT INTO contacts (user_id, email_account_id, email, name)
       SELECT $1, $2, v.email, v.name FROM jsonb_to_recordset($3::jsonb) AS v(email text, name text)
       ON CONFLICT (user_id, email_account_id, email) DO UPDATE
          SET name = COALESCE(contacts.name, EXCLUDED.name),
              updated_at = CASE WHEN contacts.name IS NULL AND EXCLUDED.name IS NOT NULL THEN now() ELSE contacts.updated_at END
       RETURNING id, email, (xmax = 0) AS inserted`,
      [this.account.userId, this.account.id, JSON.stringify(rows)],
      this.transaction,
    );
  }

  /**
   * Links new contacts to the emails they already took part in (stored earlier because of someone
   * else), so an email shows under every contact regardless of the order mail was synced in.
   * Answers each contact's newest email among those.
   */
  async linkEarlierEmails(contactIds: string[]): Promise<Map<string, Date>> {
    if (contactIds.length === 0) return new Map();
    const rows = await selectRows<{ contact_id: string; newest: Date | null }>(
      this.sequelize,
      `WITH linked AS (
         INSERT INTO email_contacts (email_id, contact_id)
         SELECT e.id, c.id FROM contacts c
           JOIN emails e ON e.email_account_id = c.email_account_id AND e.participants @> ARRAY[c.email]
          WHERE c.id = ANY($1::uuid[])
         ON CONFLICT DO NOTHING
         RETURNING email_id, contact_id)
       SELECT l.contact_id, max(e.date) AS newest FROM linked l JOIN emails e ON e.id = l.email_id GROUP BY l.contact_id`,
      [contactIds],
      this.transaction,
    );
    return new Map(rows.filter((r) => r.newest !== null).map((r) => [r.contact_id, r.newest!]));
  }

  /** last_email_at moves forward only: `newest` holds each contact's newest email of this batch. */
  async advanceLastEmailAt(newest: Map<string, Date>): Promise<void> {
    if (newest.size === 0) return;
    await execute(
      this.sequelize,
      `UPDATE contacts c SET last_email_at = v.newest
         FROM unnest($1::uuid[], $2::timestamptz[]) AS v(id, newest)
        WHERE c.id = v.id AND (c.last_email_at IS NULL OR c.last_email_at < v.newest)`,
      [[...newest.keys()], [...newest.values()].map((d) => d.toISOString())],
      this.transaction,
    );
  }

  /** After emails were removed: last_email_at = what is left (NULL when nothing is). */
  async recomputeLastEmailAt(contactIds: string[]): Promise<void> {
    if (contactIds.length === 0) return;
    await execute(
      this.sequelize,
      `UPDATE contacts c SET last_email_at =
              (SELECT max(e.date) FROM email_contacts ec JOIN emails e ON e.id = ec.email_id WHERE ec.contact_id = c.id)
        WHERE c.id = ANY($1::uuid[])`,
      [contactIds],
      this.transaction,
    );
  }
}
