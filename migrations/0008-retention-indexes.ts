import type { QueryInterface } from 'sequelize';

/**
 * The hourly retention job (src/maintenance/retention-service.ts) deletes sessions that ended and
 * throttle counters that expired. Without these indexes each run would scan the whole table; the audit
 * log's deletion by created_at uses audit_logs_created_idx (0001).
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE INDEX IF NOT EXISTS sessions_expires_idx ON sessions (expires_at);
    CREATE INDEX IF NOT EXISTS sessions_revoked_idx ON sessions (revoked_at) WHERE revoked_at IS NOT NULL;
    CREATE INDEX IF NOT EXISTS rate_limits_expire_idx ON rate_limits (expire);
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP INDEX IF EXISTS rate_limits_expire_idx;
    DROP INDEX IF EXISTS sessions_revoked_idx;
    DROP INDEX IF EXISTS sessions_expires_idx;
  `);
}
