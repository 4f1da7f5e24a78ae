import type { QueryInterface, Transaction } from 'sequelize';
import { up as restoreLinkTriggers } from './0013-link-integrity-by-statement.js';
import { PORTABLE_UUID_V7 } from './0015-time-ordered-email-ids.js';
import { up as restoreKeyTriggers } from './0016-contact-and-account-keys-by-statement.js';

/**
 * Real foreign keys again (docs/adr/0100-real-foreign-keys.md). Migrations 0013 and 0016 had replaced
 * five keys by statement-level triggers for about 11% of the backend's CPU on a mailbox's first sync.
 * Those triggers failed open (TRUNCATE, key updates, REPEATABLE READ races, restores with triggers
 * off) and no tool could see them; a sync racing an ownership hand-over left rows under the old owner.
 *
 * This migration, in one transaction:
 * 1. drops the hand-made integrity triggers and their eight functions;
 * 2. repairs what they (or the hand-over race) may have left, counting each repair: rows whose
 *    parent is gone; contacts stored twice for one account under two owners (merged, with their
 *    emails, links and notes); owner columns that disagree with the account;
 * 3. adds the keys. The owner columns of contacts and emails reference the account's (id, user_id)
 *    with ON UPDATE CASCADE: a row can never name anyone but the account's owner, and a hand-over
 *    (one UPDATE of email_accounts.user_id) moves every row in the same statement;
 * 4. search: an expression index over an accent-folded vector instead of a stored generated column
 *    (an unchanged email's upsert can then be a HOT update), fillfactor room for those updates;
 * 5. pins the search_path of every function it keeps; crm_uuid_v7() gets the portable body on every
 *    major, so a dump taken on PostgreSQL 18 restores into 13-17.
 */

const DROP_INTEGRITY_TRIGGERS = `
  DROP TRIGGER IF EXISTS emails_delete_links ON emails;
  DROP TRIGGER IF EXISTS emails_check_contacts ON emails;
  DROP TRIGGER IF EXISTS emails_check_email_accounts ON emails;
  DROP TRIGGER IF EXISTS emails_check_keys_on_update ON emails;
  DROP TRIGGER IF EXISTS email_contacts_check_email ON email_contacts;
  DROP TRIGGER IF EXISTS email_contacts_check_contacts ON email_contacts;
  DROP TRIGGER IF EXISTS email_contacts_check_contact_on_update ON email_contacts;
  DROP TRIGGER IF EXISTS contacts_delete_mail ON contacts;
  DROP TRIGGER IF EXISTS email_accounts_delete_mail ON email_accounts;
  DROP FUNCTION IF EXISTS crm_emails_delete_links(), crm_email_contacts_check_email(), crm_check_contacts_exist(),
    crm_check_email_accounts_exist(), crm_emails_check_keys_on_update(), crm_email_contacts_check_contact_on_update(),
    crm_contacts_delete_mail(), crm_email_accounts_delete_mail();
`;

/**
 * The repairs, each counted; one audit record (action schema.repaired) holds the counts when anything
 * was repaired, so an admin reads it with `crm-admin audit list --action schema.repaired`.
 */
const REPAIR = `
DO $repair$
DECLARE
  n bigint;
  counts jsonb := '{}'::jsonb;
BEGIN
  DELETE FROM emails e WHERE NOT EXISTS (SELECT 1 FROM email_accounts a WHERE a.id = e.email_account_id);
  GET DIAGNOSTICS n = ROW_COUNT; counts := counts || jsonb_build_object('emailsWithoutAccount', n);
  DELETE FROM emails e WHERE NOT EXISTS (SELECT 1 FROM contacts c WHERE c.id = e.contact_id);
  GET DIAGNOSTICS n = ROW_COUNT; counts := counts || jsonb_build_object('emailsWithoutContact', n);

  -- Contacts of one account and address under several owners: the one under the account's owner
  -- (else the oldest) keeps the others' emails, links, notes and dates.
  CREATE TEMP TABLE crm_contact_merge ON COMMIT DROP AS
    SELECT dup_id, keep_id FROM (
      SELECT c.id AS dup_id,
             first_value(c.id) OVER (PARTITION BY c.email_account_id, c.email
                                     ORDER BY (c.user_id = a.user_id) DESC, c.created_at, c.id) AS keep_id
        FROM contacts c JOIN email_accounts a ON a.id = c.email_account_id) m
     WHERE dup_id <> keep_id;
  UPDATE emails e SET contact_id = m.keep_id FROM crm_contact_merge m WHERE e.contact_id = m.dup_id;
  INSERT INTO email_contacts (email_id, contact_id, email_date, is_read)
    SELECT l.email_id, m.keep_id, l.email_date, l.is_read FROM email_contacts l JOIN crm_contact_merge m ON m.dup_id = l.contact_id
    ON CONFLICT DO NOTHING;
  DELETE FROM email_contacts l USING crm_contact_merge m WHERE l.contact_id = m.dup_id;
  UPDATE contacts k SET
         notes = NULLIF(concat_ws(E'\\n\\n', k.notes, d.notes), ''),
         name = coalesce(k.name, d.name),
         added_at = least(k.added_at, d.added_at),
         last_email_at = greatest(k.last_email_at, d.last_email_at),
         updated_at = now()
    FROM (SELECT m.keep_id, string_agg(c.notes, E'\\n\\n' ORDER BY c.created_at) FILTER (WHERE c.notes IS NOT NULL AND c.notes <> '') AS notes,
                 min(c.name) AS name, min(c.added_at) AS added_at, max(c.last_email_at) AS last_email_at
            FROM crm_contact_merge m JOIN contacts c ON c.id = m.dup_id GROUP BY m.keep_id) d
   WHERE k.id = d.keep_id;
  DELETE FROM contacts c USING crm_contact_merge m WHERE c.id = m.dup_id;
  GET DIAGNOSTICS n = ROW_COUNT; counts := counts || jsonb_build_object('duplicateContactsMerged', n);

  UPDATE contacts c SET user_id = a.user_id FROM email_accounts a WHERE a.id = c.email_account_id AND c.user_id <> a.user_id;
  GET DIAGNOSTICS n = ROW_COUNT; counts := counts || jsonb_build_object('contactOwnersCorrected', n);
  UPDATE emails e SET user_id = a.user_id FROM email_accounts a WHERE a.id = e.email_account_id AND e.user_id <> a.user_id;
  GET DIAGNOSTICS n = ROW_COUNT; counts := counts || jsonb_build_object('emailOwnersCorrected', n);

  DELETE FROM email_contacts l WHERE NOT EXISTS (SELECT 1 FROM emails e WHERE e.id = l.email_id)
                                  OR NOT EXISTS (SELECT 1 FROM contacts c WHERE c.id = l.contact_id);
  GET DIAGNOSTICS n = ROW_COUNT; counts := counts || jsonb_build_object('linksWithoutParent', n);

  IF EXISTS (SELECT 1 FROM jsonb_each(counts) WHERE value::bigint > 0) THEN
    INSERT INTO audit_logs (action, actor, details) VALUES ('schema.repaired', 'migration', counts || '{"migration": "0018-real-foreign-keys"}');
  END IF;
END
$repair$;
`;

const FOREIGN_KEYS = `
  ALTER TABLE email_accounts ADD CONSTRAINT email_accounts_id_owner_key UNIQUE (id, user_id);
  ALTER TABLE contacts DROP CONSTRAINT contacts_email_account_id_fkey,
    ADD CONSTRAINT contacts_account_owner_fkey FOREIGN KEY (email_account_id, user_id)
      REFERENCES email_accounts (id, user_id) ON UPDATE CASCADE ON DELETE CASCADE;
  ALTER TABLE emails
    ADD CONSTRAINT emails_account_owner_fkey FOREIGN KEY (email_account_id, user_id)
      REFERENCES email_accounts (id, user_id) ON UPDATE CASCADE ON DELETE CASCADE,
    ADD CONSTRAINT emails_contact_id_fkey FOREIGN KEY (contact_id) REFERENCES contacts (id) ON DELETE CASCADE;
  ALTER TABLE email_contacts
    ADD CONSTRAINT email_contacts_email_id_fkey FOREIGN KEY (email_id) REFERENCES emails (id) ON DELETE CASCADE,
    ADD CONSTRAINT email_contacts_contact_id_fkey FOREIGN KEY (contact_id) REFERENCES contacts (id) ON DELETE CASCADE;
`;

/** Functions kept from earlier migrations: each gets a pinned search_path. */
const KEPT_FUNCTIONS = [
  'crm_notify_auth_change()',
  'crm_email_account_owner_row()',
  'crm_check_email_account_owner()',
  'crm_emails_copy_to_links()',
  'crm_email_contacts_copy_email()',
];

export async function up(qi: QueryInterface): Promise<void> {
  // One transaction for all of it: a failure anywhere leaves the database at 0017, and the next start
  // runs the whole migration again (the migrator's own transaction only holds its advisory lock).
  await qi.sequelize.transaction((transaction) => upInTransaction(qi, transaction));
  // Rows already repaired are summarised where the operator looks at start-up.
  const [rows] = await qi.sequelize.query(
    "SELECT details FROM audit_logs WHERE action = 'schema.repaired' AND details->>'migration' = '0018-real-foreign-keys' ORDER BY id DESC LIMIT 1",
  );
  const repaired = (rows as Array<{ details: unknown }>)[0];
  if (repaired) console.warn(JSON.stringify({ level: 'warn', message: 'migration 0018 repaired rows', details: repaired.details }));
}

async function upInTransaction(qi: QueryInterface, transaction: Transaction): Promise<void> {
  const schema = await currentSchema(qi, transaction);
  const path = `${quoteIdent(schema)}, pg_temp`;
  const unaccentSchema = await ensureUnaccent(qi, transaction);
  await qi.sequelize.query(
    `
    ${DROP_INTEGRITY_TRIGGERS}
    ${REPAIR}
    ${FOREIGN_KEYS}
  `,
    { transaction },
  );
  await qi.sequelize.query(
    `
    ${KEPT_FUNCTIONS.map((f) => `ALTER FUNCTION ${f} SET search_path = ${path};`).join('\n')}
    CREATE OR REPLACE FUNCTION crm_uuid_v7() RETURNS uuid LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp
      AS $$ SELECT ${PORTABLE_UUID_V7} $$;

    -- Lower case without diacritics: "Šťastná" and "stastna" are one word to a search.
    CREATE FUNCTION crm_fold(value text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
      SET search_path = pg_catalog, pg_temp
      AS $$ SELECT lower(${quoteIdent(unaccentSchema)}.unaccent('${unaccentSchema}.unaccent'::regdictionary, value)) $$;
    CREATE FUNCTION crm_email_search_vector(subject text, body text, sender text, recipients text) RETURNS tsvector
      LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = ${path}
      AS $$ SELECT to_tsvector('simple'::regconfig, crm_fold(concat_ws(' ', subject, sender, recipients, left(body, 100000)))) $$;
    CREATE OR REPLACE FUNCTION crm_search_tsquery(search text) RETURNS tsquery
      LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = ${path} AS $$
        SELECT to_tsquery('simple'::regconfig, (
          SELECT string_agg(format('(%1$s | %1$s:*)', '''' || replace(replace(t.lexeme, '\\', '\\\\'), '''', '''''') || ''''), ' & ')
            FROM unnest(to_tsvector('simple'::regconfig, crm_fold(search))) t))
      $$;

    DROP INDEX emails_search_idx;
    ALTER TABLE emails DROP COLUMN search_vector;
    CREATE INDEX emails_search_idx ON emails USING gin (crm_email_search_vector(subject, body, "from", "to"));
    ALTER TABLE emails SET (fillfactor = 85);

    -- needsEmailSetup comes with the session check (and its cache) now: a change of a user's active
    -- accounts invalidates that user's cached sessions on every instance, as a change of the user does.
    CREATE FUNCTION crm_notify_account_owners() RETURNS trigger LANGUAGE plpgsql SET search_path = ${path} AS $$
    BEGIN
      IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM pg_notify('crm_auth_changed', OLD.user_id::text); END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') THEN PERFORM pg_notify('crm_auth_changed', NEW.user_id::text); END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER email_accounts_notify_auth_change AFTER INSERT OR DELETE ON email_accounts
      FOR EACH ROW EXECUTE FUNCTION crm_notify_account_owners();
    CREATE TRIGGER email_accounts_notify_auth_update AFTER UPDATE ON email_accounts
      FOR EACH ROW WHEN (OLD.user_id IS DISTINCT FROM NEW.user_id OR OLD.is_active IS DISTINCT FROM NEW.is_active)
      EXECUTE FUNCTION crm_notify_account_owners();
  `,
    { transaction },
  );
}

/**
 * Back to 0017's schema, for the migration tests' round trip: the plain keys 0013/0016 dropped come
 * back so that their own up() can replace them by the trigger layer again. Merged contacts stay merged.
 */
export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TRIGGER email_accounts_notify_auth_update ON email_accounts;
    DROP TRIGGER email_accounts_notify_auth_change ON email_accounts;
    DROP FUNCTION crm_notify_account_owners();
    DROP INDEX emails_search_idx;
    ALTER TABLE emails RESET (fillfactor);
    ALTER TABLE emails ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
      to_tsvector('simple'::regconfig, coalesce(subject, '') || ' ' || left(coalesce(body, ''), 100000))) STORED;
    CREATE INDEX emails_search_idx ON emails USING gin (search_vector);
    DROP FUNCTION crm_email_search_vector(text, text, text, text);
    CREATE OR REPLACE FUNCTION crm_search_tsquery(search text) RETURNS tsquery
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT to_tsquery('simple'::regconfig, (
          SELECT string_agg(format('(%1$s | %1$s:*)', '''' || replace(replace(t.lexeme, '\\', '\\\\'), '''', '''''') || ''''), ' & ')
            FROM unnest(to_tsvector('simple'::regconfig, search)) t))
      $$;
    DROP FUNCTION crm_fold(text);
    ALTER TABLE email_contacts DROP CONSTRAINT email_contacts_email_id_fkey, DROP CONSTRAINT email_contacts_contact_id_fkey;
    ALTER TABLE email_contacts ADD CONSTRAINT email_contacts_email_id_fkey FOREIGN KEY (email_id) REFERENCES emails (id) ON DELETE CASCADE,
      ADD CONSTRAINT email_contacts_contact_id_fkey FOREIGN KEY (contact_id) REFERENCES contacts (id) ON DELETE CASCADE;
    ALTER TABLE emails DROP CONSTRAINT emails_account_owner_fkey,
      ADD CONSTRAINT emails_email_account_id_fkey FOREIGN KEY (email_account_id) REFERENCES email_accounts (id) ON DELETE CASCADE,
      ADD CONSTRAINT emails_user_id_fkey FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE;
    ALTER TABLE contacts DROP CONSTRAINT contacts_account_owner_fkey,
      ADD CONSTRAINT contacts_email_account_id_fkey FOREIGN KEY (email_account_id) REFERENCES email_accounts (id) ON DELETE CASCADE;
    ALTER TABLE email_accounts DROP CONSTRAINT email_accounts_id_owner_key;
  `);
  await restoreLinkTriggers(qi);
  await restoreKeyTriggers(qi);
}

async function currentSchema(qi: QueryInterface, transaction?: Transaction): Promise<string> {
  const [rows] = await qi.sequelize.query('SELECT current_schema() AS schema', { transaction });
  return (rows as Array<{ schema: string }>)[0].schema;
}

/** unaccent ships with PostgreSQL (contrib) and is a trusted extension: the database owner may create it. */
async function ensureUnaccent(qi: QueryInterface, transaction: Transaction): Promise<string> {
  await qi.sequelize.query('CREATE EXTENSION IF NOT EXISTS unaccent', { transaction });
  const [rows] = await qi.sequelize.query("SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent'", {
    transaction,
  });
  return (rows as Array<{ schema: string }>)[0].schema;
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
