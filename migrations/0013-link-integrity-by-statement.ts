import type { QueryInterface } from 'sequelize';

/**
 * Two foreign keys cost a first sync more than they protect (docs/adr/0020-link-integrity-by-statement.md):
 *
 * - email_contacts.email_id: the key's check locks each referenced email (FOR KEY SHARE). The sync
 *   links the emails its own statement just wrote, so that is a lock and a WAL record per new link on
 *   a row nobody else can see yet (about 20,000 per first sync of 20,000 emails). It is replaced by
 *   - a statement-level cascade: deleting emails deletes their links in one DELETE per statement,
 *     whoever deletes them (the sync, a contact's deletion, an account's or user's cascade);
 *   - a statement-level check: inserting a link to an email that does not exist fails as a
 *     foreign_key_violation (23503), as the key did, with one index probe per link and no lock;
 *   - locks where they are needed: the two writers that link emails they did not write in the same
 *     transaction (a contact added by hand, new contacts linking earlier mail) lock those emails
 *     FOR KEY SHARE themselves, so a concurrent delete waits for them and its cascade sees their links.
 * - The copy trigger (migration 0012) fills a link's date and read state only when the writer left
 *   out is_read (a writer gives both or neither): the sync now inserts an email and its links in one
 *   statement, where the trigger could not see the new email, and an email without a date is normal.
 * - emails.user_id: the email account's cascade already removes the emails of a deleted user (the
 *   column always names the account's owner; an ownership transfer rewrites it in the same
 *   transaction), so the key only added a check per row.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    ALTER TABLE emails DROP CONSTRAINT emails_user_id_fkey;
    ALTER TABLE email_contacts DROP CONSTRAINT email_contacts_email_id_fkey;

    CREATE FUNCTION crm_emails_delete_links() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM email_contacts l USING gone_emails g WHERE l.email_id = g.id;
      RETURN NULL;
    END $$;
    CREATE TRIGGER emails_delete_links AFTER DELETE ON emails
      REFERENCING OLD TABLE AS gone_emails
      FOR EACH STATEMENT EXECUTE FUNCTION crm_emails_delete_links();

    CREATE FUNCTION crm_email_contacts_check_email() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      missing uuid;
    BEGIN
      SELECT n.email_id INTO missing FROM new_links n
       WHERE NOT EXISTS (SELECT 1 FROM emails e WHERE e.id = n.email_id) LIMIT 1;
      IF FOUND THEN
        RAISE EXCEPTION 'insert on table "email_contacts" refers to email % which does not exist', missing
          USING ERRCODE = 'foreign_key_violation';
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER email_contacts_check_email AFTER INSERT ON email_contacts
      REFERENCING NEW TABLE AS new_links
      FOR EACH STATEMENT EXECUTE FUNCTION crm_email_contacts_check_email();

    DROP TRIGGER email_contacts_fill_email ON email_contacts;
    CREATE TRIGGER email_contacts_fill_email BEFORE INSERT ON email_contacts
      FOR EACH ROW WHEN (NEW.is_read IS NULL)
      EXECUTE FUNCTION crm_email_contacts_copy_email();
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TRIGGER email_contacts_fill_email ON email_contacts;
    CREATE TRIGGER email_contacts_fill_email BEFORE INSERT ON email_contacts
      FOR EACH ROW WHEN (NEW.is_read IS NULL OR NEW.email_date IS NULL)
      EXECUTE FUNCTION crm_email_contacts_copy_email();
    DROP TRIGGER email_contacts_check_email ON email_contacts;
    DROP FUNCTION crm_email_contacts_check_email();
    DROP TRIGGER emails_delete_links ON emails;
    DROP FUNCTION crm_emails_delete_links();
    DELETE FROM email_contacts l WHERE NOT EXISTS (SELECT 1 FROM emails e WHERE e.id = l.email_id);
    ALTER TABLE email_contacts ADD CONSTRAINT email_contacts_email_id_fkey FOREIGN KEY (email_id) REFERENCES emails(id) ON DELETE CASCADE;
    DELETE FROM emails e WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = e.user_id);
    ALTER TABLE emails ADD CONSTRAINT emails_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE;
  `);
}
