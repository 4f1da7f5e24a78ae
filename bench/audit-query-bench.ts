/**
 * The audit trail grows without bound (every login writes two rows). This measures the queries behind
 * `GET /api/admin/audit-logs` and `crm-admin audit list` on a large table: the service's own list()
 * (page + count), median of repeated runs per filter, and the plan PostgreSQL picks.
 *
 *   node --import=tsx/esm bench/audit-query-bench.ts      # embedded PostgreSQL in a temp dir, removed afterwards
 *   BENCH_AUDIT_ROWS=200000 ...             # table size (default 1,000,000)
 */
import fs from 'node:fs';
import path from 'node:path';
import { createAppContext } from '../src/app/context.js';
import { AppConfig } from '../src/config/config.js';
import { createLogger } from '../src/logging/logger.js';
import type { AuditQuery } from '../src/audit/audit-query-service.js';
import { maintain } from './bench-database.js';

const ROWS = Number(process.env.BENCH_AUDIT_ROWS ?? 1_000_000);
const RUNS = 15;

const dir = path.join('/tmp', `crm-audit-bench-${process.pid}`);
fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
const config = AppConfig.fromEnv({ ...process.env, CRM_DATA_DIR: dir, NODE_ENV: 'development', LOG_LEVEL: 'error' });
const ctx = await createAppContext({ config, logger: createLogger('error', { silent: true }) });
try {
  const { sequelize } = ctx.db;
  const { user } = await ctx.services.users.create({ username: 'bench-target', role: 'member' }, { actor: 'bench' });
  // 1,000 users' worth of logins over a year; the target user has 1 row in 1,000.
  await sequelize.query(`
    INSERT INTO audit_logs (action, user_id, username, actor, success, ip, details, created_at)
    SELECT CASE WHEN g % 10 = 0 THEN 'auth.login_attempt' WHEN g % 97 = 0 THEN 'admin.role_changed' ELSE 'auth.login' END,
           CASE WHEN g % 1000 = 0 THEN '${user.id}'::uuid END,
           CASE WHEN g % 1000 = 0 THEN 'bench-target' ELSE 'user' || (g % 1000) END,
           'user:x', g % 10 <> 0, '10.0.0.1', '{}'::jsonb,
           now() - (g * interval '31 seconds')
      FROM generate_series(1, ${ROWS}) g`);
  await maintain(ctx, 'ANALYZE audit_logs');

  const cases: Array<[string, Partial<AuditQuery>]> = [
    ['newest 50, no filter', {}],
    ['by username', { username: 'bench-target' }],
    ['by userId', { userId: user.id }],
    ['by action', { action: 'admin.role_changed' }],
    ['action prefix admin.*', { action: 'admin.*' }],
    ['failed logins, last 7 days', { action: 'auth.login_attempt', success: false, since: new Date(Date.now() - 7 * 86400_000) }],
  ];
  console.log(`audit_logs rows: ${ROWS.toLocaleString('en')}; median of ${RUNS} runs of AuditQueryService.list (page of 50 + total)`);
  for (const [name, filter] of cases) {
    const times: number[] = [];
    let total = 0;
    for (let i = 0; i < RUNS; i++) {
      const t0 = process.hrtime.bigint();
      total = (await ctx.services.auditQuery.list({ page: 1, limit: 50, ...filter })).total;
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    times.sort((a, b) => a - b);
    console.log(`  ${name.padEnd(30)} ${times[RUNS >> 1].toFixed(1).padStart(8)} ms   (total ${total.toLocaleString('en')})`);
  }
} finally {
  await ctx.close({ stopEmbedded: true });
  fs.rmSync(dir, { recursive: true, force: true });
}
