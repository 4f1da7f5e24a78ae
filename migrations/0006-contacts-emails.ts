import type { QueryInterface } from 'sequelize';

/**
 * What the contacts and emails API needs to stay fast on a large mailbox (100k emails per user):
 *
 * - email_contacts carries a copy of its email's date and is_read, so "a contact's emails, newest
 *   first" and "unread per contact" are answered from one index range of that contact alone, never
 *   by visiting every email the contact ever had. Triggers keep the copy right, whoever writes
 *   emails (the API, the sync, an admin with psql): the sync only inserts (email_id, contact_id).
 * - a partial index for the unread mailbox view;
 * - full-text search over subject and body ('simple' configuration: lower-cased words, no stemming,
 *   so Slovak and English behave alike). Only the first 100,000 characters of a body are indexed,
 *   which keeps any tsvector far below PostgreSQL's 1 MB limit: an enormous email can never make
 *   the sync's INSERT fail.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    ALTER TABLE email_contacts
      ADD COLUMN email_date timestamptz,
      ADD COLUMN is_read boolean NOT NULL DEFAULT false;
    UPDATE email_contacts ec SET email_date = e.date, is_read = e.is_read FROM emails e WHERE e.id = ec.email_id;

    CREATE FUNCTION crm_email_contacts_copy_email() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      SELECT e.date, e.is_read INTO NEW.email_date, NEW.is_read FROM emails e WHERE e.id = NEW.email_id;
      RETURN NEW;
    END $$;
    CREATE TRIGGER email_contacts_copy_email BEFORE INSERT OR UPDATE OF email_id ON email_contacts
      FOR EACH ROW EXECUTE FUNCTION crm_email_contacts_copy_email();

    -- Statement level with transition tables: marking 10,000 emails read is one UPDATE of the links,
    -- not 10,000 trigger calls.
    CREATE FUNCTION crm_emails_copy_to_links() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE email_contacts ec
         SET email_date = n.date, is_read = n.is_read
        FROM new_rows n JOIN old_rows o ON o.id = n.id
       WHERE ec.email_id = n.id
         AND (n.date IS DISTINCT FROM o.date OR n.is_read IS DISTINCT FROM o.is_read);
      RETURN NULL;
    END $$;
    CREATE TRIGGER emails_copy_to_links AFTER UPDATE ON emails
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION crm_emails_copy_to_links();

    CREATE INDEX email_contacts_contact_date_idx ON email_contacts (contact_id, email_date DESC, email_id);
    CREATE INDEX email_contacts_contact_unread_idx ON email_contacts (contact_id, email_date DESC, email_id) WHERE NOT is_read;
    CREATE INDEX emails_user_unread_date_idx ON emails (user_id, date DESC, id) WHERE NOT is_read;

    ALTER TABLE emails ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
      to_tsvector('simple'::regconfig, coalesce(subject, '') || ' ' || left(coalesce(body, ''), 100000))
    ) STORED;
    CREATE INDEX emails_search_idx ON emails USING gin (search_vector);
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP INDEX IF EXISTS emails_search_idx;
    ALTER TABLE emails DROP COLUMN IF EXISTS search_vector;
    DROP INDEX IF EXISTS emails_user_unread_date_idx;
    DROP INDEX IF EXISTS email_contacts_contact_unread_idx;
    DROP INDEX IF EXISTS email_contacts_contact_date_idx;
    DROP TRIGGER IF EXISTS emails_copy_to_links ON emails;
    DROP FUNCTION IF EXISTS crm_emails_copy_to_links();
    DROP TRIGGER IF EXISTS email_contacts_copy_email ON email_contacts;
    DROP FUNCTION IF EXISTS crm_email_contacts_copy_email();
    ALTER TABLE email_contacts DROP COLUMN IF EXISTS is_read, DROP COLUMN IF EXISTS email_date;
  `);
}
