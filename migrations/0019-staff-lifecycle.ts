import type { QueryInterface } from 'sequelize';

/**
 * The staff lifecycle (docs/api.md "Users"): disabling a leaver instead of deleting them, and the
 * colleague directory's accent-insensitive search.
 *
 * - users.disabled_at: set while the account is disabled (login refused, sessions ended, hidden from
 *   the directory, own mailboxes no longer synced). A partial index keeps "the active admins" and the
 *   directory's "active users" one index range each.
 * - crm_search_fold(text): lower case without diacritics, so "Sebo" finds "Šebo" and "ZUZANA" finds
 *   "Zuzana". It uses the unaccent extension (PostgreSQL contrib, a trusted extension: the database
 *   owner may install it) when it can be installed, with its dictionary named explicitly; without it,
 *   translate() over the letters of Slovak and Czech names and their neighbours. Either way the
 *   function is IMMUTABLE with a fixed search_path, so neither a caller's search_path nor a same-named
 *   function elsewhere can change what it answers.
 * - sessions already keep ip, user_agent and last_used_at (0001); the list of one's sessions reads
 *   them by user, which sessions_user_idx (open sessions per user) already serves.
 */
const FROM = 'áäàâãåčćçďéěëèêíìîïĺľłňńñóôöòõőŕřšśťúůüùûűýÿžźżÁÄÀÂÃÅČĆÇĎÉĚËÈÊÍÌÎÏĹĽŁŇŃÑÓÔÖÒÕŐŔŘŠŚŤÚŮÜÙÛŰÝŸŽŹŻ';
/** Each letter of FROM without its marks (ł and Ł have none to strip). */
const TO = [...FROM].map((c) => ({ ł: 'l', Ł: 'L' })[c] ?? c.normalize('NFD').replace(/\p{M}/gu, '')).join('');

export async function up(qi: QueryInterface): Promise<void> {
  if ([...FROM].length !== TO.length || /[^A-Za-z]/.test(TO)) throw new Error('fold table: FROM and TO do not match');
  await qi.sequelize.query(`
    ALTER TABLE users ADD COLUMN disabled_at timestamptz;
    CREATE INDEX users_active_role_idx ON users (role) WHERE disabled_at IS NULL;

    -- In its own block: where contrib is not installed (or the role may not create it) the fallback is used.
    DO $do$
    BEGIN
      CREATE EXTENSION IF NOT EXISTS unaccent;
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE 'unaccent not available (%): crm_search_fold uses translate()', SQLERRM;
    END $do$;

    DO $do$
    DECLARE
      ext_schema text;
    BEGIN
      SELECT n.nspname INTO ext_schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent';
      IF ext_schema IS NOT NULL THEN
        EXECUTE format(
          'CREATE FUNCTION crm_search_fold(value text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
             SET search_path = pg_catalog, %1$I
             AS %2$L',
          ext_schema,
          format('SELECT lower(%1$I.unaccent(%2$L::regdictionary, value))', ext_schema, ext_schema || '.unaccent'));
      ELSE
        EXECUTE $fold$CREATE FUNCTION crm_search_fold(value text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
          SET search_path = pg_catalog
          AS $body$ SELECT lower(translate(value, '${FROM}', '${TO}')) $body$ $fold$;
      END IF;
    END $do$;
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  // The extension stays: other objects may use it, and it holds no data.
  await qi.sequelize.query(`
    DROP FUNCTION IF EXISTS crm_search_fold(text);
    DROP INDEX IF EXISTS users_active_role_idx;
    ALTER TABLE users DROP COLUMN IF EXISTS disabled_at;
  `);
}
