/**
 * pg-boss against our own leased rows, for due work that must happen once (docs/adr/0146-scheduled-send.md):
 * the same load both ways, on the embedded PostgreSQL and through PgBouncer in transaction mode.
 * 1,000 jobs due in the same second, two workers (as two instances) polling each second, a no-op
 * handler: the time from the due second until the last is done, and how many ran twice.
 *
 * pg-boss is not a dependency: install it beside (npm install --prefix /tmp/pgboss-eval pg-boss@12.38.0)
 * and run `PG_BOSS_MODULE=/tmp/pgboss-eval/node_modules/pg-boss/dist/index.js node --import=tsx/esm bench/job-queue-evaluation.ts`.
 * Without it, only our rows are measured.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { startPgBouncer } from '../test/support/pgbouncer.js';
import { openBenchDatabase } from './bench-database.js';

const JOBS = 1000;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Result {
  how: string;
  startMs?: number;
  doneAfterDueMs: number;
  twice: number;
  error?: string;
}

/** Our shape: one table, claimed with FOR UPDATE SKIP LOCKED and a lease, two pollers each second (join, 10 at a time). */
async function ownRows(url: string, how: string): Promise<Result> {
  const pool = new pg.Pool({ connectionString: url, max: 6 });
  const table = `eval_jobs_${randomUUID().slice(0, 8)}`;
  await pool.query(
    `CREATE TABLE ${table} (id serial PRIMARY KEY, due_at timestamptz NOT NULL, status text NOT NULL DEFAULT 'due', lease_until timestamptz, attempts int NOT NULL DEFAULT 0)`,
  );
  const due = new Date(Date.now() + 2000);
  await pool.query(`INSERT INTO ${table} (due_at) SELECT $1 FROM generate_series(1, ${JOBS})`, [due]);
  const ran = new Map<number, number>();
  let last = 0;
  const worker = async () => {
    while (ran.size < JOBS) {
      const { rows } = await pool.query<{ id: number }>(
        `UPDATE ${table} SET status = 'running', attempts = attempts + 1, lease_until = now() + interval '30 seconds'
          WHERE id IN (SELECT id FROM ${table} WHERE status = 'due' AND due_at <= now() ORDER BY due_at LIMIT 10 FOR UPDATE SKIP LOCKED) RETURNING id`,
      );
      for (const { id } of rows) ran.set(id, (ran.get(id) ?? 0) + 1);
      if (rows.length > 0) {
        await pool.query(`UPDATE ${table} SET status = 'done', lease_until = NULL WHERE id = ANY($1::int[])`, [rows.map((r) => r.id)]);
        last = Date.now();
      } else await pause(1000);
    }
  };
  await Promise.all([worker(), worker()]);
  await pool.query(`DROP TABLE ${table}`);
  await pool.end();
  return { how, doneAfterDueMs: last - due.getTime(), twice: [...ran.values()].filter((n) => n > 1).length };
}

interface BossLike {
  start(): Promise<unknown>;
  stop(options?: { graceful?: boolean; wait?: boolean }): Promise<void>;
  createQueue(name: string): Promise<void>;
  insert(name: string, jobs: Array<{ data?: object; startAfter?: Date }>): Promise<unknown>;
  work(name: string, options: { pollingIntervalSeconds: number; batchSize: number }, handler: (jobs: Array<{ id: string }>) => Promise<void>): Promise<string>;
  on(event: 'error', listener: (err: Error) => void): unknown;
}

async function pgBoss(modulePath: string, url: string, how: string): Promise<Result> {
  const { PgBoss } = (await import(modulePath)) as { PgBoss: new (options: { connectionString: string; schema: string; max?: number }) => BossLike };
  const schema = `pgboss_${randomUUID().slice(0, 8)}`;
  const bosses = [new PgBoss({ connectionString: url, schema, max: 3 }), new PgBoss({ connectionString: url, schema, max: 3 })];
  const errors: string[] = [];
  for (const b of bosses) b.on('error', (err) => errors.push(err.message));
  const started = Date.now();
  try {
    await bosses[0].start();
    const startMs = Date.now() - started;
    await bosses[1].start();
    await bosses[0].createQueue('eval');
    const due = new Date(Date.now() + 2000);
    await bosses[0].insert(
      'eval',
      Array.from({ length: JOBS }, () => ({ data: {}, startAfter: due })),
    );
    const ran = new Map<string, number>();
    let last = 0;
    for (const b of bosses) {
      await b.work('eval', { pollingIntervalSeconds: 1, batchSize: 10 }, async (jobs) => {
        for (const j of jobs) ran.set(j.id, (ran.get(j.id) ?? 0) + 1);
        last = Date.now();
      });
    }
    const deadline = Date.now() + 120_000;
    while (ran.size < JOBS && Date.now() < deadline) await pause(200);
    return {
      how,
      startMs,
      doneAfterDueMs: ran.size < JOBS ? NaN : last - due.getTime(),
      twice: [...ran.values()].filter((n) => n > 1).length,
      ...(errors[0] ? { error: errors[0] } : {}),
    };
  } catch (err) {
    return { how, doneAfterDueMs: NaN, twice: 0, error: (err as Error).message.split('\n')[0] };
  } finally {
    for (const b of bosses) await b.stop({ graceful: false, wait: true }).catch(() => undefined);
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await pool.end();
  }
}

async function main(): Promise<void> {
  const db = await openBenchDatabase('jobqueue');
  const bouncer = await startPgBouncer(db.url, 'transaction');
  const results: Result[] = [];
  const boss = process.env.PG_BOSS_MODULE;
  try {
    // Alternating rounds: the machine is shared, only what one round says beside the other counts.
    for (let round = 0; round < 2; round++) {
      results.push(await ownRows(db.url, 'own rows, direct'));
      if (boss) results.push(await pgBoss(boss, db.url, 'pg-boss, direct'));
      results.push(await ownRows(bouncer.url, 'own rows, PgBouncer transaction'));
      if (boss) results.push(await pgBoss(boss, bouncer.url, 'pg-boss, PgBouncer transaction'));
    }
  } finally {
    await bouncer.close();
    await db.close();
  }
  console.log(
    `job queue evaluation: ${JOBS} jobs due in one second, two workers polling each second, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} (shared machine)`,
  );
  for (const r of results) {
    const start = r.startMs === undefined ? '' : `, start ${r.startMs} ms`;
    console.log(
      `  ${r.how.padEnd(32)} all done ${Number.isNaN(r.doneAfterDueMs) ? 'NOT' : `${r.doneAfterDueMs} ms`} after due, ${r.twice} twice${start}${r.error ? `; error: ${r.error}` : ''}`,
    );
  }
}

await main();
