/**
 * Measuring API pages through the whole HTTP stack, shared by the benchmarks: sequential keep-alive
 * requests with a Bearer token, wall time and this process's CPU per request, percentiles, and the
 * EXPLAIN (ANALYZE, BUFFERS) plans of a list query's page and total.
 */
import http from 'node:http';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../src/app/context.js';

export interface Scenario {
  name: string;
  path: string;
  token: string;
  samples: number[];
  /** CPU time of this process (server and client) per request: unlike wall time, not inflated by other load. */
  cpuMicros: number[];
}

export function scenario(name: string, urlPath: string, token: string): Scenario {
  return { name, path: urlPath, token, samples: [], cpuMicros: [] };
}

export async function measure(base: string, agent: http.Agent, s: Scenario, count: number, record: boolean): Promise<void> {
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const t0 = process.hrtime.bigint();
    const status = await get(`${base}${s.path}`, s.token, agent);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (status !== 200) throw new Error(`${s.name}: HTTP ${status}`);
    if (record) s.samples.push(ms);
  }
  const cpu = process.cpuUsage(cpu0);
  if (record) s.cpuMicros.push((cpu.user + cpu.system) / count);
}

function get(url: string, token: string, agent: http.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: { Authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function report(scenarios: Scenario[]): void {
  const width = Math.max(...scenarios.map((s) => s.name.length));
  console.log(`${'scenario'.padEnd(width)}  ${'n'.padStart(5)}  ${'p50 ms'.padStart(7)}  ${'p99 ms'.padStart(7)}  ${'max ms'.padStart(7)}  ${'node CPU ms/req'.padStart(15)}`);
  for (const s of scenarios) {
    const f = (p: number) => percentile(s.samples, p).toFixed(2).padStart(7);
    const cpu = s.cpuMicros.reduce((a, b) => a + b, 0) / s.cpuMicros.length / 1000;
    console.log(`${s.name.padEnd(width)}  ${String(s.samples.length).padStart(5)}  ${f(50)}  ${f(99)}  ${f(100)}  ${cpu.toFixed(2).padStart(15)}`);
  }
}

export async function explain(ctx: AppContext, title: string, query: { pageSql: string; countSql: string; bind: Record<string, unknown> }): Promise<void> {
  for (const [part, sql] of [
    ['page', query.pageSql],
    ['total', query.countSql],
  ] as const) {
    const rows = await ctx.db.sequelize.query<Record<string, string>>(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, { bind: query.bind, type: QueryTypes.SELECT });
    console.log(`\nEXPLAIN ANALYZE: ${title}, ${part} query\n${rows.map((r) => `  ${r['QUERY PLAN']}`).join('\n')}`);
  }
}

export async function scalar(ctx: AppContext, sql: string): Promise<string> {
  const [row] = await ctx.db.sequelize.query<Record<string, string>>(sql, { type: QueryTypes.SELECT });
  return Object.values(row)[0];
}
