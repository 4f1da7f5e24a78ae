import type { QueryInterface } from 'sequelize';

/**
 * The three foreign keys a synced email and its links check per row (emails.contact_id,
 * emails.email_account_id, email_contacts.contact_id) become checks per statement, as migration 0013
 * did for email_contacts.email_id (docs/adr/0023-contact-and-account-keys-by-statement.md).
 *
 * A key's check is one query per inserted row: 500 per key per sync page, all for the same handful
 * of contacts and one account. Each backend plans it once, for the table as it is then; for a
 * contacts table of a few hundred rows that plan is a sequential scan, so every check reads the whole
 * table. The sync bench showed these checks at 5-10 ms of a page's ~30 ms statement, growing with
 * the contacts table. Per statement instead:
 * - an insert (or an update that changes the column) locks the distinct contacts or accounts it
 *   names FOR KEY SHARE, as the key's check did, so a concurrent delete waits for the writer and its
 *   cascade then sees the new rows; and fails with foreign_key_violation (23503), as the key did, when
 *   one of them does not exist;
 * - deleting contacts deletes the emails filed under them and their links; deleting email accounts
 *   deletes their emails (the links go with the emails, migration 0013), one statement each,
 *   whoever deletes (the API, an account's or user's cascade, psql).
 */

/**
 * The check of one key column, as a piece of a trigger function: lock the distinct parents that the
 * rows in `named` name (a FROM clause over the rows to check, aliased n, ending in a WHERE), then
 * refuse a missing one as a foreign key would (23503).
 */
const keyCheck = (named: string, column: string, parents: string, what: string) => `
    PERFORM 1 FROM ${parents} p WHERE p.id IN (SELECT DISTINCT n.${column} FROM ${named}) FOR KEY SHARE OF p;
    SELECT n.${column} INTO missing FROM ${named} AND NOT EXISTS (SELECT 1 FROM ${parents} p WHERE p.id = n.${column}) LIMIT 1;
    IF FOUND THEN
      RAISE EXCEPTION 'insert or update on table "%" refers to ${what} % which does not exist', TG_TABLE_NAME, missing
        USING ERRCODE = 'foreign_key_violation';
    END IF;`;

const triggerFunction = (name: string, checks: string) => `
  CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    missing uuid;
  BEGIN${checks}
    RETURN NULL;
  END $$;
`;

const CONTACT = ['contact_id', 'contacts', 'contact'] as const;
const ACCOUNT = ['email_account_id', 'email_accounts', 'email account'] as const;

/**
 * Inserts check every row (their transition tables). Updates check only rows whose key column
 * changed (a key's check skips the others too), so marking 10,000 emails read locks nothing. A link
 * is its (email_id, contact_id) pair: a row of new_rows without an equal row in old_rows changed.
 */
const CHECK_FUNCTIONS =
  triggerFunction('crm_check_contacts_exist', keyCheck('named_contacts n WHERE true', ...CONTACT)) +
  triggerFunction('crm_check_email_accounts_exist', keyCheck('named_accounts n WHERE true', ...ACCOUNT)) +
  triggerFunction(
    'crm_emails_check_keys_on_update',
    keyCheck('new_rows n JOIN old_rows o ON o.id = n.id WHERE n.contact_id <> o.contact_id', ...CONTACT) +
      keyCheck('new_rows n JOIN old_rows o ON o.id = n.id WHERE n.email_account_id <> o.email_account_id', ...ACCOUNT),
  ) +
  triggerFunction(
    'crm_email_contacts_check_contact_on_update',
    keyCheck('new_rows n WHERE NOT EXISTS (SELECT 1 FROM old_rows o WHERE o.email_id = n.email_id AND o.contact_id = n.contact_id)', ...CONTACT),
  );

const CASCADES = `
  CREATE FUNCTION crm_contacts_delete_mail() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    DELETE FROM emails e USING gone_contacts g WHERE e.contact_id = g.id;
    DELETE FROM email_contacts l USING gone_contacts g WHERE l.contact_id = g.id;
    RETURN NULL;
  END $$;

  CREATE FUNCTION crm_email_accounts_delete_mail() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    DELETE FROM emails e USING gone_accounts g WHERE e.email_account_id = g.id;
    RETURN NULL;
  END $$;
`;

export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    ALTER TABLE emails DROP CONSTRAINT emails_contact_id_fkey, DROP CONSTRAINT emails_email_account_id_fkey;
    ALTER TABLE email_contacts DROP CONSTRAINT email_contacts_contact_id_fkey;
    ${CHECK_FUNCTIONS}
    ${CASCADES}
    CREATE TRIGGER emails_check_contacts AFTER INSERT ON emails
      REFERENCING NEW TABLE AS named_contacts FOR EACH STATEMENT EXECUTE FUNCTION crm_check_contacts_exist();
    CREATE TRIGGER emails_check_email_accounts AFTER INSERT ON emails
      REFERENCING NEW TABLE AS named_accounts FOR EACH STATEMENT EXECUTE FUNCTION crm_check_email_accounts_exist();
    CREATE TRIGGER emails_check_keys_on_update AFTER UPDATE ON emails
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION crm_emails_check_keys_on_update();
    CREATE TRIGGER email_contacts_check_contacts AFTER INSERT ON email_contacts
      REFERENCING NEW TABLE AS named_contacts FOR EACH STATEMENT EXECUTE FUNCTION crm_check_contacts_exist();
    CREATE TRIGGER email_contacts_check_contact_on_update AFTER UPDATE ON email_contacts
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION crm_email_contacts_check_contact_on_update();
    CREATE TRIGGER contacts_delete_mail AFTER DELETE ON contacts
      REFERENCING OLD TABLE AS gone_contacts FOR EACH STATEMENT EXECUTE FUNCTION crm_contacts_delete_mail();
    CREATE TRIGGER email_accounts_delete_mail AFTER DELETE ON email_accounts
      REFERENCING OLD TABLE AS gone_accounts FOR EACH STATEMENT EXECUTE FUNCTION crm_email_accounts_delete_mail();
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TRIGGER email_accounts_delete_mail ON email_accounts;
    DROP TRIGGER contacts_delete_mail ON contacts;
    DROP TRIGGER email_contacts_check_contact_on_update ON email_contacts;
    DROP TRIGGER email_contacts_check_contacts ON email_contacts;
    DROP TRIGGER emails_check_keys_on_update ON emails;
    DROP TRIGGER emails_check_email_accounts ON emails;
    DROP TRIGGER emails_check_contacts ON emails;
    DROP FUNCTION crm_email_accounts_delete_mail(), crm_contacts_delete_mail(), crm_email_contacts_check_contact_on_update(),
      crm_emails_check_keys_on_update(), crm_check_email_accounts_exist(), crm_check_contacts_exist();
    DELETE FROM email_contacts l WHERE NOT EXISTS (SELECT 1 FROM contacts c WHERE c.id = l.contact_id);
    DELETE FROM emails e WHERE NOT EXISTS (SELECT 1 FROM contacts c WHERE c.id = e.contact_id)
                            OR NOT EXISTS (SELECT 1 FROM email_accounts a WHERE a.id = e.email_account_id);
    ALTER TABLE email_contacts ADD CONSTRAINT email_contacts_contact_id_fkey FOREIGN KEY (contact_id) REFERENCES contacts(id) ON DELETE CASCADE;
    ALTER TABLE emails ADD CONSTRAINT emails_contact_id_fkey FOREIGN KEY (contact_id) REFERENCES contacts(id) ON DELETE CASCADE,
      ADD CONSTRAINT emails_email_account_id_fkey FOREIGN KEY (email_account_id) REFERENCES email_accounts(id) ON DELETE CASCADE;
  `);
}
