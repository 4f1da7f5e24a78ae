/**
 * Commits that do not queue (issue 50, migration 0071, ADR 0157): sync-batch-like transactions of several
 * workers committing at once, with the events trigger notifying inside the transaction (as before
 * 0071: every such commit takes PostgreSQL's one notification lock) against the batch deferring it
 * (`crm.events_wake = after_commit`, then one NOTIFY of its own after the commit, as BatchWriter does).
 *
 *   node --import=tsx/esm bench/notify-commit-bench.ts
 *
 * Each batch: BEGIN; the checkpoint UPDATE of mail_sync_states (synchronous_commit off, as the sync's);
 * an INSERT of BENCH_ROWS contacts (the statement trigger writes contact.created events); COMMIT. A LISTEN
 * connection is open, as an API instance's would be. Rounds alternate between the two ways, so a shared
 * machine's load falls on both alike; the figures are ratios within this run. The embedded PostgreSQL
 * keeps fsync on (production-like). Env: BENCH_WORKERS (list, "2,8"), BENCH_ROUNDS (4), BENCH_ROUND_MS
 * (3000), BENCH_ROWS (20), BENCH_DATABASE_URL.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { openBenchDatabase } from './bench-database.js';
import { percentile } from './bench-http.js';

const WORKERS = (process.env.BENCH_WORKERS ?? '2,8').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 3000);
const ROWS = Number(process.env.BENCH_ROWS ?? 20);
/** synchronous_commit of the batch: off as the sync's batches (relaxDurability), on as every other write. */
const DURABILITY = (process.env.BENCH_SYNC_COMMIT ?? 'off,on').split(',') as Array<'off' | 'on'>;

type Way = 'notify-in-commit' | 'wake-after-commit';

interface RoundResult {
  commits: number;
  latencies: number[];
}

async function batch(client: pg.Client, wakes: pg.Pool, account: { id: string; userId: string }, way: Way, sync: 'off' | 'on', latencies: number[]): Promise<void> {
  const started = process.hrtime.bigint();
  await client.query('BEGIN');
  const settings = way === 'wake-after-commit' ? ", set_config('crm.events_wake', 'after_commit', true)" : '';
  await client.query(`UPDATE mail_sync_states SET updated_at = now() WHERE email_account_id = $1 RETURNING set_config('synchronous_commit', '${sync}', true)${settings}`, [
    account.id,
  ]);
  const emails = Array.from({ length: ROWS }, () => `${crypto.randomBytes(6).toString('hex')}@bench.example`);
  await client.query('INSERT INTO contacts (user_id, email_account_id, email) SELECT $1, $2, unnest($3::text[])', [account.userId, account.id, emails]);
  await client.query('COMMIT');
  // As BatchWriter: the wake-up goes out on another pooled connection, not awaited by the next batch.
  if (way === 'wake-after-commit') void wakes.query("SELECT pg_notify('crm_events', '')").catch(() => undefined);
  latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
}

async function round(clients: pg.Client[], wakes: pg.Pool, accounts: Array<{ id: string; userId: string }>, way: Way, sync: 'off' | 'on'): Promise<RoundResult> {
  const latencies: number[] = [];
  const until = Date.now() + ROUND_MS;
  let commits = 0;
  await Promise.all(
    clients.map(async (client, i) => {
      while (Date.now() < until) {
        await batch(client, wakes, accounts[i], way, sync, latencies);
        commits++;
      }
    }),
  );
  return { commits, latencies };
}

async function main(): Promise<void> {
  const db = await openBenchDatabase('notify-commit');
  const listener = new pg.Client({ connectionString: db.url });
  const all: pg.Client[] = [listener];
  const wakes = new pg.Pool({ connectionString: db.url, max: 2 });
  let notifications = 0;
  try {
    await listener.connect();
    listener.on('notification', () => notifications++);
    await listener.query('LISTEN crm_events');
    const maxWorkers = Math.max(...WORKERS);
    const setup = new pg.Client({ connectionString: db.url });
    all.push(setup);
    await setup.connect();
    const accounts: Array<{ id: string; userId: string }> = [];
    for (let i = 0; i < maxWorkers; i++) {
      const { user } = await db.ctx.services.users.create({ username: `notify${i}-${crypto.randomBytes(3).toString('hex')}`, role: 'member' }, { actor: 'bench' });
      const id = crypto.randomUUID();
      await setup.query("INSERT INTO email_accounts (id, user_id, email, email_password, jmap_account_id, is_primary) VALUES ($1, $2, $3, 'x', $3, true)", [
        id,
        user.id,
        `w${i}@bench.example`,
      ]);
      await setup.query('INSERT INTO mail_sync_states (email_account_id) VALUES ($1) ON CONFLICT DO NOTHING', [id]);
      accounts.push({ id, userId: user.id });
    }
    console.log(
      `notify-commit bench: rounds of ${ROUND_MS} ms, ${ROWS} contacts per batch, ${ROUNDS} rounds per way, alternating; load before: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    for (const [workers, sync] of WORKERS.flatMap((w) => DURABILITY.map((d) => [w, d] as const))) {
      const clients = Array.from({ length: workers }, () => new pg.Client({ connectionString: db.url }));
      all.push(...clients);
      await Promise.all(clients.map((c) => c.connect()));
      const totals: Record<Way, { rates: number[]; latencies: number[] }> = {
        'notify-in-commit': { rates: [], latencies: [] },
        'wake-after-commit': { rates: [], latencies: [] },
      };
      for (let r = 0; r < ROUNDS; r++) {
        // Alternate which way goes first, so a trend in the machine's load favours neither.
        const order: Way[] = r % 2 === 0 ? ['notify-in-commit', 'wake-after-commit'] : ['wake-after-commit', 'notify-in-commit'];
        for (const way of order) {
          const result = await round(clients, wakes, accounts, way, sync);
          totals[way].rates.push((result.commits / ROUND_MS) * 1000);
          totals[way].latencies.push(...result.latencies);
        }
      }
      const median = (xs: number[]) => percentile(xs, 50);
      const before = totals['notify-in-commit'];
      const after = totals['wake-after-commit'];
      console.log(`\n${workers} workers committing at once, synchronous_commit ${sync}:`);
      for (const [way, t] of Object.entries(totals)) {
        console.log(
          `  ${way.padEnd(18)} ${median(t.rates).toFixed(0).padStart(6)} commits/s (median of ${ROUNDS} rounds)   commit p50 ${percentile(t.latencies, 50).toFixed(2)} ms  p99 ${percentile(t.latencies, 99).toFixed(2)} ms`,
        );
      }
      await Promise.all(clients.map((c) => c.end()));
      console.log(
        `  ratio after/before: throughput ×${(median(after.rates) / median(before.rates)).toFixed(2)}, p50 latency ×${(percentile(after.latencies, 50) / percentile(before.latencies, 50)).toFixed(2)}, p99 latency ×${(percentile(after.latencies, 99) / percentile(before.latencies, 99)).toFixed(2)}`,
      );
    }
    const events = await setup.query<{ n: string }>("SELECT count(*) AS n FROM events WHERE type = 'contact.created'");
    console.log(`\nevents written: ${events.rows[0].n} contact.created rows; notifications received by the listener: ${notifications}`);
    console.log(
      `load after: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} (a shared machine: compare the ratios, not the absolute figures)`,
    );
  } finally {
    await Promise.all(all.map((c) => c.end().catch(() => undefined)));
    await wakes.end().catch(() => undefined);
    await db.close();
  }
}

await main();
