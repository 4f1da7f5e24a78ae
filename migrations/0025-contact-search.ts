import type { QueryInterface, Transaction } from 'sequelize';

/**
 * Contact search with Slovak habits (issue 34): accent- and case-insensitive, several words in any
 * order, over the name and the address. "kovac jan" finds "Ján Kováč", "stastna" finds "Šťastná".
 *
 * contacts.search_text is the folded text a search reads: crm_contact_search_text(name, email), i.e.
 * crm_fold of migration 0018 (lower case, no diacritics) over both, stored (a generated column, so
 * the sync and the API cannot forget it). Stored rather than an expression index: the index's
 * recheck of each candidate row then compares text instead of folding it again (unaccent per row was
 * most of a common word's time in bench/contact-search.ts), and a contact is short. A change of
 * last_email_at alone leaves the value, so such updates stay HOT.
 *
 * A trigram GIN index over it (pg_trgm, shipped with PostgreSQL 13+ as a trusted extension, so the
 * database owner may create it) serves every word of three letters or more as a LIKE '%word%'
 * condition, so neither a page nor its total reads the contacts that do not match (the total used to
 * scan every contact of the installation).
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.transaction(async (transaction) => {
    const schema = await scalar(qi, 'SELECT current_schema() AS value', transaction);
    await qi.sequelize.query('CREATE EXTENSION IF NOT EXISTS pg_trgm', { transaction });
    const trgm = await scalar(qi, "SELECT n.nspname AS value FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'", transaction);
    await qi.sequelize.query(
      `
      CREATE FUNCTION crm_contact_search_text(name text, email text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = ${quoteIdent(schema)}, pg_temp
        AS $$ SELECT crm_fold(concat_ws(' ', name, email)) $$;
      ALTER TABLE contacts ADD COLUMN search_text text GENERATED ALWAYS AS (crm_contact_search_text(name, email)) STORED;
      CREATE INDEX contacts_search_trgm_idx ON contacts USING gin (search_text ${quoteIdent(trgm)}.gin_trgm_ops);
      `,
      { transaction },
    );
  });
}

export async function down(qi: QueryInterface): Promise<void> {
  // pg_trgm stays: other objects of the database may use it by now, and it costs nothing unused.
  await qi.sequelize.transaction(async (transaction) => {
    await qi.sequelize.query('DROP INDEX IF EXISTS contacts_search_trgm_idx; ALTER TABLE contacts DROP COLUMN IF EXISTS search_text; DROP FUNCTION IF EXISTS crm_contact_search_text(text, text);', { transaction });
  });
}

async function scalar(qi: QueryInterface, sql: string, transaction: Transaction): Promise<string> {
  const [rows] = await qi.sequelize.query(sql, { transaction });
  return (rows as Array<{ value: string }>)[0].value;
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
