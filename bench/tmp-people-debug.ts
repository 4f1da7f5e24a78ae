import { createAppContext } from '../src/app/context.js';
import { AppConfig } from '../src/config/config.js';
import { createLogger } from '../src/logging/logger.js';
import { personMatchQuery, personWindowsQuery, personCountQuery } from '../src/people/person-query.js';
import { QueryTypes } from 'sequelize';

const env = {
  NODE_ENV: 'production', DATABASE_URL: process.env.URL!, CRM_DATA_DIR: '/tmp/crm-bench-dbg',
  JWT_ACCESS_SECRET: '1455Ctk8e5fyWaFH6d4d8TLzvd9Des6al/DOMjEWOB6IbwlPqe5drebCX8bFA3Kx',
  JWT_REFRESH_SECRET: 'tvYe7WS41tBRHYksKcTAiytXWF7Q+uQBMy5gPqx20IETAZ4+MQ46jMSWxW8Z4uB3',
  CRM_ENCRYPTION_KEY: '4f5edb03a4e3e27b1110244b3c52c42c759985bda1661a5ac46271f550165462', LOG_LEVEL: 'warn',
};
const ctx = await createAppContext({ config: AppConfig.fromEnv(env), logger: createLogger('warn'), migrate: false });
const q = (sql: string, bind: Record<string, unknown>) => ctx.db.sequelize.query<Record<string, unknown>>(sql, { bind, type: QueryTypes.SELECT });
const [u] = await q(`SELECT m.user_id AS id FROM email_account_members m GROUP BY m.user_id HAVING count(*) = 3 LIMIT 1`, {});
const userId = u.id as string;
const which = process.argv[2];
let sql: string; let bind: Record<string, unknown> = { userId };
if (which === 'windows') { sql = personWindowsQuery({ includeColleagues: false }); bind.window = Number(process.argv[3] ?? 1001); }
else if (which === 'count') { sql = personCountQuery({ includeColleagues: false }); }
else { bind = { userId, limit: 51, offset: 0 }; sql = personMatchQuery(which === 'tag' ? { includeColleagues: false, tag: 'zilina' } : { includeColleagues: false, search: 'kovac' }, bind, which === 'tag' ? [] : ['kovac']).sql; }
const mode = process.argv[4] ?? 'explain';
await q('SET statement_timeout = 0', {});
if (mode === 'explain') { const rows = await q(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, bind); console.log(rows.map((r) => r['QUERY PLAN']).join('\n')); }
else { for (let i = 0; i < 20; i++) { const t = process.hrtime.bigint(); await q(sql, bind); console.log(Number(process.hrtime.bigint() - t) / 1e6); } }
await ctx.close();
