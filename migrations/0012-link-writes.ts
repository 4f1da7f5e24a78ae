import type { QueryInterface } from 'sequelize';

/**
 * Cheaper links for the sync's bulk writes (a first sync of 20,000 emails writes 20,000+ of them):
 *
 * - The copy trigger (migration 0006) looked the email up once per inserted link. The writers that
 *   have the email's date and read state at hand (the sync, which just wrote the email, and the
 *   linking of earlier mail, which reads the emails anyway) now insert them with the link; the trigger
 *   only fills in what a writer left out. is_read loses its default so that "left out" is visible
 *   (NULL) to the trigger; NOT NULL is checked after it.
 * - The primary key leads with email_id: it then also serves the lookups and cascades by email, and
 *   the separate email_id index is dropped. The contact side reads email_contacts_contact_date_idx.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    ALTER TABLE email_contacts ALTER COLUMN is_read DROP DEFAULT;
    DROP TRIGGER email_contacts_copy_email ON email_contacts;
    CREATE TRIGGER email_contacts_fill_email BEFORE INSERT ON email_contacts
      FOR EACH ROW WHEN (NEW.is_read IS NULL OR NEW.email_date IS NULL)
      EXECUTE FUNCTION crm_email_contacts_copy_email();
    CREATE TRIGGER email_contacts_copy_email BEFORE UPDATE OF email_id ON email_contacts
      FOR EACH ROW EXECUTE FUNCTION crm_email_contacts_copy_email();

    ALTER TABLE email_contacts DROP CONSTRAINT email_contacts_pkey, ADD PRIMARY KEY (email_id, contact_id);
    DROP INDEX email_contacts_email_idx;
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE INDEX email_contacts_email_idx ON email_contacts (email_id);
    ALTER TABLE email_contacts DROP CONSTRAINT email_contacts_pkey, ADD PRIMARY KEY (contact_id, email_id);

    DROP TRIGGER email_contacts_copy_email ON email_contacts;
    DROP TRIGGER email_contacts_fill_email ON email_contacts;
    CREATE TRIGGER email_contacts_copy_email BEFORE INSERT OR UPDATE OF email_id ON email_contacts
      FOR EACH ROW EXECUTE FUNCTION crm_email_contacts_copy_email();
    ALTER TABLE email_contacts ALTER COLUMN is_read SET DEFAULT false;
  `);
}
