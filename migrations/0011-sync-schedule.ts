import type { QueryInterface } from 'sequelize';

/**
 * Each account's own turn in the polling schedule (SYNC_INTERVAL): after a successful run the next
 * one is due at the account's next slot, a fixed phase within the interval derived from its id, so
 * that accounts are spread evenly over the interval instead of all falling due at once. NULL means
 * "due now" (never synced, or synced before this migration). Backoff after a failure stays in
 * next_attempt_at; an account is due when both have passed (or when it was requested).
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    ALTER TABLE mail_sync_states ADD COLUMN next_sync_at timestamptz;
    CREATE INDEX mail_sync_states_next_sync_idx ON mail_sync_states (next_sync_at);
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP INDEX IF EXISTS mail_sync_states_next_sync_idx;
    ALTER TABLE mail_sync_states DROP COLUMN IF EXISTS next_sync_at;
  `);
}
