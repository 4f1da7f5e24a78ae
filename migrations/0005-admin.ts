import type { QueryInterface } from 'sequelize';

/**
 * `crm-admin audit list --user NAME` and the admin API's `username` filter look records up by name,
 * case-insensitively (records of deleted users keep only the name). Without this index that is a scan
 * of the whole, ever-growing audit table: measured 346 ms at 1M rows, see bench/audit-query-bench.ts.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query('CREATE INDEX IF NOT EXISTS audit_logs_username_idx ON audit_logs (lower(username), created_at DESC)');
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query('DROP INDEX IF EXISTS audit_logs_username_idx');
}
