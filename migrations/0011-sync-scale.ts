import type { QueryInterface } from 'sequelize';

/**
 * Mail for a whole company, promptly:
 *
 * - Each account's own turn in the polling schedule (SYNC_INTERVAL): after a successful run the next
 *   one is due at the account's next slot, a fixed phase within the interval derived from its id, so
 *   accounts are spread evenly over the interval instead of all falling due at once. NULL means "due
 *   now" (never synced, or synced before this migration). Backoff after a failure stays in
 *   next_attempt_at; an account is due when both have passed (or when it was requested).
 * - Search plans that stay right with a million emails. The search text becomes its tsquery in a
 *   function the planner evaluates (IMMUTABLE), so it sees the actual words; each word is written
 *   as "the word or a word starting with it" ('w' | 'w':*), which matches exactly what the prefix term
 *   alone did, but lets PostgreSQL estimate it from its statistics (a prefix term alone always gets a
 *   default of a few percent). With that and the dependency of email_account_id on user_id (extended
 *   statistics), a word found in most of a mailbox is searched along the mailbox's date index instead
 *   of through a GIN entry listing every email of the installation (300 ms -> under 1 ms for a page).
 */
const SEARCH_FUNCTION = String.raw`
  CREATE FUNCTION crm_search_tsquery(search text) RETURNS tsquery
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT to_tsquery('simple'::regconfig, (
      SELECT string_agg(format('(%1$s | %1$s:*)', '''' || replace(replace(t.lexeme, '\', '\\'), '''', '''''') || ''''), ' & ')
        FROM unnest(to_tsvector('simple'::regconfig, search)) t))
  $$;
  CREATE STATISTICS emails_user_account_stats (dependencies) ON user_id, email_account_id FROM emails;
`;

export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    ALTER TABLE mail_sync_states ADD COLUMN next_sync_at timestamptz;
    CREATE INDEX mail_sync_states_next_sync_idx ON mail_sync_states (next_sync_at);
  `);
  await qi.sequelize.query(SEARCH_FUNCTION);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP STATISTICS IF EXISTS emails_user_account_stats;
    DROP FUNCTION IF EXISTS crm_search_tsquery(text);
    DROP INDEX IF EXISTS mail_sync_states_next_sync_idx;
    ALTER TABLE mail_sync_states DROP COLUMN IF EXISTS next_sync_at;
  `);
}
