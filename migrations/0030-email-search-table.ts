import type { QueryInterface, Transaction } from 'sequelize';

/**
 * Mailbox search reads a stored search document (issue 36, docs/adr/0120-stored-email-search.md).
 *
 * The expression index of migration 0018 holds no vector: wherever it is not the access path (a common
 * word, the 10,000-row total, a page over several accounts) crm_email_search_vector() was computed
 * again per row at ~90-100 µs, and a common word at a million emails took seconds. email_search is a
 * narrow side table: per email its account and date (the page order) and the document, stripped of
 * positions (no search asks for them: crm_search_tsquery builds only &, | and prefixes, whose matches
 * a stripped vector answers alike, in less space). A search walks (email_account_id, date DESC,
 * email_id) per account and tests each document, or finds a selective word through the GIN index.
 *
 * Kept by triggers on emails, so every writer (the sync, sending, crm-admin, a restore's COPY with the
 * triggers off excepted: it restores this table too) keeps it: a statement-level INSERT trigger (one
 * INSERT ... SELECT per statement over its transition table) and a row-level UPDATE trigger that fires
 * only when a column of the document, the date or the account is written and differs (the sync's
 * upsert writes none of them, so a resync never touches this table). A deleted email takes its row
 * with it (ON DELETE CASCADE).
 *
 * The backfill computes every document once (the same work as building 0018's index): ~100 µs per
 * email, about 2-4 minutes per million emails on 2 cores, inside this migration's transaction; the
 * indexes are built after the rows are in (a bulk build, not a million inserts into a GIN index).
 *
 * Also: the contacts' event trigger (migration 0021) compares the columns that are a contact's news
 * one by one instead of two to_jsonb() copies of every row (61-65 ms of a 308 ms sync page at 500
 * contacts; explicit columns: under 1 ms). A column added to contacts later must be added here too,
 * or be noise (test/emails/search-equivalence.test.ts fails until it is listed).
 */
/** The contacts' event function of migration 0021, with the test of "changed" given. */
const contactEvents = (changed: string) => `
  CREATE OR REPLACE FUNCTION crm_events_contacts() RETURNS trigger LANGUAGE plpgsql SET search_path = public, pg_temp AS $$
  DECLARE
    added bigint;
  BEGIN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO events (type, email_account_id, payload)
      SELECT 'contact.created', n.email_account_id, ${grouped('n')} FROM new_rows n GROUP BY n.email_account_id;
    ELSIF TG_OP = 'UPDATE' THEN
      INSERT INTO events (type, email_account_id, payload)
      SELECT 'contact.updated', n.email_account_id, ${grouped('n')}
        FROM new_rows n JOIN old_rows o ON o.id = n.id
       WHERE ${changed}
       GROUP BY n.email_account_id;
    ELSE
      INSERT INTO events (type, email_account_id, payload)
      SELECT 'contact.deleted', o.email_account_id, ${grouped('o')} FROM old_rows o GROUP BY o.email_account_id;
    END IF;
    GET DIAGNOSTICS added = ROW_COUNT;
    IF added > 0 THEN
      PERFORM pg_notify('crm_events', '');
    END IF;
    RETURN NULL;
  END $$;`;

/** As in migration 0021: a statement's rows of one account, with their ids when there are few. */
const grouped = (alias: string) =>
  `CASE WHEN count(*) > 50
        THEN jsonb_build_object('emailAccountId', ${alias}.email_account_id, 'count', count(*))
        ELSE jsonb_build_object('emailAccountId', ${alias}.email_account_id, 'count', count(*), 'ids', jsonb_agg(${alias}.id)) END`;

/**
 * Every column of contacts but the noise of migration 0021 (last_email_at, updated_at, user_id) and
 * search_text (derived from name and email).
 */
const CONTACT_NEWS_COLUMNS = ['email_account_id', 'email', 'name', 'notes', 'added_at', 'created_at', 'company_id'];
const CONTACT_CHANGED = `(${CONTACT_NEWS_COLUMNS.map((c) => `n.${c}`).join(', ')}) IS DISTINCT FROM (${CONTACT_NEWS_COLUMNS.map((c) => `o.${c}`).join(', ')})`;
const CONTACT_CHANGED_0021 = `(to_jsonb(n) - '{last_email_at,updated_at,user_id}'::text[]) IS DISTINCT FROM (to_jsonb(o) - '{last_email_at,updated_at,user_id}'::text[])`;

const DOCUMENT = (row: string) => `strip(crm_email_search_vector(${row}.subject, ${row}.body, ${row}."from", ${row}."to"))`;

export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.transaction(async (transaction) => {
    const path = `${quoteIdent(await scalar(qi, 'SELECT current_schema() AS value', transaction))}, pg_temp`;
    await qi.sequelize.query(
      `
      -- The backfill and the index builds take minutes on a large installation: past the pool's 30 s
      -- statement timeout (for this transaction only), with more memory for the GIN build.
      SET LOCAL statement_timeout = 0;
      SET LOCAL maintenance_work_mem = '256MB';
      CREATE TABLE email_search (
        email_id uuid NOT NULL,
        email_account_id uuid NOT NULL,
        date timestamptz,
        document tsvector NOT NULL
      );
      INSERT INTO email_search (email_id, email_account_id, date, document)
      SELECT e.id, e.email_account_id, e.date, ${DOCUMENT('e')} FROM emails e;
      ALTER TABLE email_search ADD PRIMARY KEY (email_id),
        ADD CONSTRAINT email_search_email_id_fkey FOREIGN KEY (email_id) REFERENCES emails (id) ON DELETE CASCADE;
      CREATE INDEX email_search_account_date_idx ON email_search (email_account_id, date DESC, email_id);
      CREATE INDEX email_search_document_idx ON email_search USING gin (document);

      CREATE FUNCTION crm_email_search_insert() RETURNS trigger LANGUAGE plpgsql SET search_path = ${path} AS $$
      BEGIN
        INSERT INTO email_search (email_id, email_account_id, date, document)
        SELECT n.id, n.email_account_id, n.date, ${DOCUMENT('n')} FROM new_rows n;
        RETURN NULL;
      END $$;
      CREATE TRIGGER emails_search_insert AFTER INSERT ON emails
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION crm_email_search_insert();

      CREATE FUNCTION crm_email_search_update() RETURNS trigger LANGUAGE plpgsql SET search_path = ${path} AS $$
      BEGIN
        UPDATE email_search SET email_account_id = NEW.email_account_id, date = NEW.date,
               document = CASE WHEN (NEW.subject, NEW.body, NEW."from", NEW."to") IS NOT DISTINCT FROM (OLD.subject, OLD.body, OLD."from", OLD."to")
                               THEN document ELSE ${DOCUMENT('NEW')} END
         WHERE email_id = NEW.id;
        RETURN NULL;
      END $$;
      CREATE TRIGGER emails_search_update AFTER UPDATE OF subject, body, "from", "to", date, email_account_id ON emails
        FOR EACH ROW
        WHEN ((OLD.subject, OLD.body, OLD."from", OLD."to", OLD.date, OLD.email_account_id)
              IS DISTINCT FROM (NEW.subject, NEW.body, NEW."from", NEW."to", NEW.date, NEW.email_account_id))
        EXECUTE FUNCTION crm_email_search_update();

      DROP INDEX emails_search_idx;
      ${contactEvents(CONTACT_CHANGED)}
      `,
      { transaction },
    );
    // Statistics now: the search reads the document's most common words (search-terms.ts) from the first query on.
    await qi.sequelize.query('ANALYZE email_search', { transaction });
  });
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.transaction(async (transaction) => {
    await qi.sequelize.query(
      `
      CREATE INDEX emails_search_idx ON emails USING gin (crm_email_search_vector(subject, body, "from", "to"));
      DROP TRIGGER emails_search_update ON emails;
      DROP TRIGGER emails_search_insert ON emails;
      DROP FUNCTION crm_email_search_update();
      DROP FUNCTION crm_email_search_insert();
      DROP TABLE email_search;
      ${contactEvents(CONTACT_CHANGED_0021)}
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
