/**
 * The two statements that keep a contact's links to emails and its last_email_at in step, shared by
 * the contacts area (a contact added or deleted by hand) and the sync (contacts it creates, emails it
 * removes): one implementation, so both agree on what "the newest email" of a contact is.
 */
import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';

/**
 * Links contacts to the emails of their account they already took part in (the sync keeps every
 * email's addresses in emails.participants, migration 0004) and moves each one's last_email_at
 * forward to the newest email it just got, in one statement. Links that exist already are left
 * alone; an email without a date links but moves nothing. The links' foreign keys hold the emails
 * against a concurrent delete.
 */
export async function linkEarlierEmails(sql: Sql, contactIds: readonly string[], tx?: Tx): Promise<void> {
  if (contactIds.length === 0) return;
  await sql.execute(
    `WITH linked AS (
       INSERT INTO email_contacts (email_id, contact_id, email_date, is_read)
       SELECT e.id, c.id, e.date, e.is_read FROM contacts c
         JOIN emails e ON e.email_account_id = c.email_account_id AND e.participants @> ARRAY[c.email]
        WHERE c.id = ANY($contactIds::uuid[])
          AND NOT EXISTS (SELECT 1 FROM email_contacts x WHERE x.email_id = e.id AND x.contact_id = c.id)
       ON CONFLICT DO NOTHING
       RETURNING contact_id, email_date)
     UPDATE contacts c SET last_email_at = n.newest
       FROM (SELECT contact_id, max(email_date) AS newest FROM linked WHERE email_date IS NOT NULL GROUP BY contact_id) n
      WHERE c.id = n.contact_id AND (c.last_email_at IS NULL OR c.last_email_at < n.newest)`,
    { contactIds },
    tx,
  );
}

/**
 * After contacts lost emails: last_email_at from the links they still have (NULL when none is left).
 * A link carries its email's date (email_contacts.email_date, kept in step by the triggers of
 * migrations 0006 and 0012), so this reads email_contacts_contact_date_idx and no email row.
 */
export async function recomputeLastEmailAt(sql: Sql, contactIds: readonly string[], tx?: Tx): Promise<void> {
  if (contactIds.length === 0) return;
  await sql.execute(
    `UPDATE contacts c SET last_email_at = (SELECT max(l.email_date) FROM email_contacts l WHERE l.contact_id = c.id)
      WHERE c.id = ANY($contactIds::uuid[])`,
    { contactIds },
    tx,
  );
}
