import type { QueryInterface, Transaction } from 'sequelize';

/**
 * People: one record per correspondent above the spec's per-mailbox contacts (issue 46,
 * docs/adr/0135-people-kept-by-triggers.md). Contacts stay exactly as they are; a person is found
 * from a contact by its address.
 *
 * - people: the shared record (a name staff gave, phone, job title, tags, notes, a company), no
 *   address of its own. Its id is random (gen_random_uuid, never the time-ordered crm_uuid_v7): an id
 *   must not tell since when someone here deals with the person (issue 52, finding 1).
 *   search_text is the folded name staff gave (crm_person_search_text), trigram-indexed where set;
 *   the tags are indexed folded (crm_tag_keys) for the accent- and case-insensitive tag filter.
 * - person_emails: which person an address is; an address is exactly one person installation-wide,
 *   and exactly the addresses that have a contact (in any mailbox) have a row. A person without an
 *   address is removed. A merge moves addresses from one person to another (people-merge in src/people).
 * - Triggers on contacts keep it so in the writer's own transaction, whoever writes: the sync's upserts,
 *   a contact added or deleted by hand, an import, the erasure, the retention, an account or user
 *   removed (their cascades), the hand-over. A new address gets a new person (crm_people_adopt); an
 *   address whose last contact went loses its row, and its person when it was the last
 *   (crm_people_forget). Both lock what they decide on before a new statement reads it (see the
 *   functions), so concurrent writers of one address never leave it without a person or with two.
 * - contacts_email_idx: the contacts of an address (the person's mailboxes), across accounts; it also
 *   answers crm_people_forget's "any contact left?". email_accounts_address_idx: is an address a
 *   colleague's (the installation's own mail accounts), one probe.
 *
 * Existing contacts are filled here: one person per distinct address, with the company its contacts
 * are filed under. Cost: one pass over contacts (a GROUP BY on the address) and an index build on it;
 * on a million contacts some tens of seconds (docs/upgrades.md), under the migration's locks.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.transaction(async (transaction) => {
    // Trigger functions run with the writer's search_path: each pins the schema's.
    const schema = await scalar(qi, 'SELECT current_schema() AS value', transaction);
    const trgm = await scalar(qi, "SELECT n.nspname AS value FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'", transaction);
    await qi.sequelize.query(upSql(`${quoteIdent(schema)}, pg_temp`, quoteIdent(trgm)), { transaction });
  });
}

const upSql = (path: string, trgm: string) => `
    CREATE FUNCTION crm_person_search_text(name text) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT SET search_path = ${path}
      AS $$ SELECT crm_fold(name) $$;
    CREATE FUNCTION crm_tag_keys(tags text[]) RETURNS text[]
      LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = ${path}
      AS $$ SELECT coalesce(array_agg(DISTINCT crm_fold(t)), '{}'::text[]) FROM unnest(tags) AS t $$;

    -- The tables are filled from the contacts first and indexed after (one sorted build per index
    -- instead of an insert into each per row); the triggers come last.
    CREATE TABLE people (
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      name text,
      phone text,
      title text,
      tags text[] NOT NULL DEFAULT '{}',
      notes text,
      company_id uuid,
      search_text text GENERATED ALWAYS AS (crm_person_search_text(name)) STORED,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE person_emails (
      email text NOT NULL,
      person_id uuid NOT NULL
    );
    WITH addresses AS MATERIALIZED (
           SELECT c.email, (array_agg(c.company_id ORDER BY c.company_id) FILTER (WHERE c.company_id IS NOT NULL))[1] AS company_id, gen_random_uuid() AS id
             FROM contacts c GROUP BY c.email),
         made AS (INSERT INTO people (id, company_id) SELECT a.id, a.company_id FROM addresses a)
    INSERT INTO person_emails (email, person_id) SELECT a.email, a.id FROM addresses a;

    ALTER TABLE people ADD CONSTRAINT people_pkey PRIMARY KEY (id),
      ADD CONSTRAINT people_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE SET NULL;
    ALTER TABLE person_emails ADD CONSTRAINT person_emails_pkey PRIMARY KEY (email),
      ADD CONSTRAINT person_emails_person_id_fkey FOREIGN KEY (person_id) REFERENCES people(id) ON DELETE CASCADE;
    CREATE INDEX people_company_idx ON people (company_id) WHERE company_id IS NOT NULL;
    CREATE INDEX people_tags_idx ON people USING gin (crm_tag_keys(tags)) WHERE tags <> '{}';
    CREATE INDEX people_search_trgm_idx ON people USING gin (search_text ${trgm}.gin_trgm_ops) WHERE name IS NOT NULL;
    CREATE INDEX person_emails_person_idx ON person_emails (person_id, email);

    CREATE INDEX contacts_email_idx ON contacts (email, email_account_id) INCLUDE (last_email_at);
    CREATE INDEX email_accounts_address_idx ON email_accounts (lower(email));

    -- Addresses that got a contact: each one without a person gets a new person of its own (with the
    -- company its contact is filed under). The rows of the addresses that have a person are held
    -- first (KEY SHARE): a crm_people_forget of the same address (its last other contact deleted at
    -- this moment) then waits for this commit and sees the new contact, or, if it came first, has
    -- deleted the row by the time the next statement here looks, which then creates a person again.
    -- Two writers creating a person for one new address: the unique address decides, the loser's
    -- person is removed again in the same call.
    CREATE FUNCTION crm_people_adopt(addresses text[], companies uuid[]) RETURNS void LANGUAGE plpgsql SET search_path = ${path} AS $$
    DECLARE
      orphans uuid[];
    BEGIN
      PERFORM 1 FROM person_emails pe WHERE pe.email = ANY(addresses) ORDER BY pe.email FOR KEY SHARE;
      WITH fresh AS MATERIALIZED (
             SELECT a.email, a.company_id, gen_random_uuid() AS id
               FROM (SELECT DISTINCT ON (u.email) u.email, u.company_id FROM unnest(addresses, companies) AS u(email, company_id)
                      WHERE NOT EXISTS (SELECT 1 FROM person_emails pe WHERE pe.email = u.email)
                      ORDER BY u.email, u.company_id NULLS LAST) a),
           made AS (INSERT INTO people (id, company_id) SELECT f.id, f.company_id FROM fresh f),
           linked AS (INSERT INTO person_emails (email, person_id) SELECT f.email, f.id FROM fresh f ORDER BY f.email
                      ON CONFLICT (email) DO NOTHING RETURNING person_id)
      SELECT array_agg(f.id) INTO orphans FROM fresh f WHERE NOT EXISTS (SELECT 1 FROM linked l WHERE l.person_id = f.id);
      IF orphans IS NOT NULL THEN
        DELETE FROM people WHERE id = ANY(orphans);
      END IF;
    END $$;

    -- Addresses that lost a contact: those with no contact left lose their row, and a person left
    -- without an address goes. The people first, then the address rows, in key order (the order a
    -- merge takes them), then a new statement decides: it sees every contact a concurrent adopter of
    -- the same address committed while this waited for its KEY SHARE.
${FORGET(path)}

${CONTACTS_ADDED(path)}

    CREATE FUNCTION crm_people_contacts_removed() RETURNS trigger LANGUAGE plpgsql SET search_path = ${path} AS $$
    DECLARE
      addresses text[];
    BEGIN
      SELECT array_agg(DISTINCT o.email) INTO addresses FROM gone_contacts o;
      IF addresses IS NOT NULL THEN
        PERFORM crm_people_forget(addresses);
      END IF;
      RETURN NULL;
    END $$;

    -- A contact's address is never changed by the service; a change by hand is a removal and an addition.
${READDRESSED(path)}

    CREATE TRIGGER contacts_people_insert AFTER INSERT ON contacts
      REFERENCING NEW TABLE AS new_contacts FOR EACH STATEMENT EXECUTE FUNCTION crm_people_contacts_added();
    CREATE TRIGGER contacts_people_delete AFTER DELETE ON contacts
      REFERENCING OLD TABLE AS gone_contacts FOR EACH STATEMENT EXECUTE FUNCTION crm_people_contacts_removed();
    CREATE TRIGGER contacts_people_update AFTER UPDATE OF email ON contacts
      FOR EACH ROW WHEN (OLD.email IS DISTINCT FROM NEW.email) EXECUTE FUNCTION crm_people_contact_readdressed();

  `;

/** crm_people_forget as this migration creates it (0083 reorders its locks and restores it on down). */
export const FORGET = (path: string) => `    CREATE FUNCTION crm_people_forget(addresses text[]) RETURNS void LANGUAGE plpgsql SET search_path = ${path} AS $$
    DECLARE
      emptied uuid[];
    BEGIN
      PERFORM 1 FROM people p WHERE p.id IN (SELECT pe.person_id FROM person_emails pe WHERE pe.email = ANY(addresses)) ORDER BY p.id FOR UPDATE OF p;
      PERFORM 1 FROM person_emails pe WHERE pe.email = ANY(addresses) ORDER BY pe.email FOR UPDATE;
      WITH gone AS (DELETE FROM person_emails pe WHERE pe.email = ANY(addresses)
                       AND NOT EXISTS (SELECT 1 FROM contacts c WHERE c.email = pe.email) RETURNING pe.person_id)
      SELECT array_agg(DISTINCT g.person_id) INTO emptied FROM gone g;
      IF emptied IS NOT NULL THEN
        DELETE FROM people p WHERE p.id = ANY(emptied) AND NOT EXISTS (SELECT 1 FROM person_emails pe WHERE pe.person_id = p.id);
      END IF;
    END $$;`;

/** The function of a contact's address changed by hand (0083 leaves the adopting to its row trigger and restores it on down). */
export const READDRESSED = (path: string) => `    CREATE FUNCTION crm_people_contact_readdressed() RETURNS trigger LANGUAGE plpgsql SET search_path = ${path} AS $$
    BEGIN
      PERFORM crm_people_adopt(ARRAY[NEW.email], ARRAY[NEW.company_id]);
      PERFORM crm_people_forget(ARRAY[OLD.email]);
      RETURN NULL;
    END $$;`;

/** The statement trigger's function that adopts new addresses (0083 replaces it and restores it on down). */
export const CONTACTS_ADDED = (path: string) => `    CREATE FUNCTION crm_people_contacts_added() RETURNS trigger LANGUAGE plpgsql SET search_path = ${path} AS $$
    DECLARE
      addresses text[];
      companies uuid[];
    BEGIN
      SELECT array_agg(n.email ORDER BY n.email), array_agg(n.company_id ORDER BY n.email) INTO addresses, companies FROM new_contacts n;
      IF addresses IS NOT NULL THEN
        PERFORM crm_people_adopt(addresses, companies);
      END IF;
      RETURN NULL;
    END $$;`;

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.transaction(async (transaction) => {
    await qi.sequelize.query(
      `
      DROP TRIGGER IF EXISTS contacts_people_update ON contacts;
      DROP TRIGGER IF EXISTS contacts_people_delete ON contacts;
      DROP TRIGGER IF EXISTS contacts_people_insert ON contacts;
      DROP FUNCTION IF EXISTS crm_people_contact_readdressed();
      DROP FUNCTION IF EXISTS crm_people_contacts_removed();
      DROP FUNCTION IF EXISTS crm_people_contacts_added();
      DROP FUNCTION IF EXISTS crm_people_forget(text[]);
      DROP FUNCTION IF EXISTS crm_people_adopt(text[], uuid[]);
      DROP INDEX IF EXISTS email_accounts_address_idx;
      DROP INDEX IF EXISTS contacts_email_idx;
      DROP TABLE IF EXISTS person_emails;
      DROP TABLE IF EXISTS people;
      DROP FUNCTION IF EXISTS crm_tag_keys(text[]);
      DROP FUNCTION IF EXISTS crm_person_search_text(text);
      `,
      { transaction },
    );
  });
}

async function scalar(qi: QueryInterface, sql: string, transaction: Transaction): Promise<string> {
  const [rows] = await qi.sequelize.query(sql, { transaction });
  return (rows as Array<{ value: string }>)[0].value;
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
