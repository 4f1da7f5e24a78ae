import type { QueryInterface } from 'sequelize';

/**
 * The staff lifecycle (docs/api.md "Users"): disabling a leaver instead of deleting them, and the
 * colleague directory's accent-insensitive search.
 *
 * - users.disabled_at: set while the account is disabled (login refused, sessions ended, hidden from
 *   the directory, own mailboxes no longer synced). A partial index keeps "the active admins" and the
 *   directory's "active users" one index range each.
 * - The directory's accent-insensitive search folds with crm_fold (migration 0018), the function the
 *   email search uses: one definition of "the same word without diacritics".
 * - sessions already keep ip, user_agent and last_used_at (0001); the list of one's sessions reads
 *   them by user, which sessions_user_idx (open sessions per user) already serves.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    ALTER TABLE users ADD COLUMN disabled_at timestamptz;
    CREATE INDEX users_active_role_idx ON users (role) WHERE disabled_at IS NULL;
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP INDEX IF EXISTS users_active_role_idx;
    ALTER TABLE users DROP COLUMN IF EXISTS disabled_at;
  `);
}
