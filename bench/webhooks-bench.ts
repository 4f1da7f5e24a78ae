/**
 * Webhook delivery under load (issue 48): events committed into the outbox at RATE a minute for
 * SECONDS, to 5 webhooks, through the webhook-deliveries job of a running instance (startServer, the
 * same runner as serve). Reports, per receiver, the time from the commit to the receiver (p50, p95) and
 * how many arrived, and where a fast receiver's time went (claim, lease, call). Round "baseline": all
 * five answer at once; round "slow": one receiver answers in 5 s; the third adds five webhooks whose
 * receivers are gone (every call refused, then retried), which doubles the calls. Targets: p50 < 2 s for a 2xx receiver, and the four fast
 * receivers' figures with a slow one beside them close to the baseline's (a slow receiver does not
 * back up the others).
 *
 *   node --import=tsx/esm bench/webhooks-bench.ts [rate=1000] [seconds=60]
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { createAppContext } from '../src/app/context.js';
import { startServer } from '../src/app/server.js';
import { createLogger } from '../src/logging/logger.js';
import { openBenchDatabase } from './bench-database.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]);

interface Receiver {
  url: string;
  lags: number[];
  close(): Promise<void>;
}

async function receiver(delayMs: number, tag: string): Promise<Receiver> {
  const lags: number[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { data: { t?: number; tag?: string } };
      if (body.data.tag === tag && typeof body.data.t === 'number') lags.push(Date.now() - body.data.t);
      setTimeout(() => res.writeHead(204).end(), delayMs);
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    lags,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A URL where nothing listens (a port that was just free): every call is refused at once. */
async function unreachableUrl(): Promise<string> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}/hook`;
}

interface Round {
  label: string;
  /** One of the five receivers answers in 5 s. */
  slow: boolean;
  /** Webhooks beside them whose receivers are gone. */
  unreachable: number;
}

async function round({ label, slow, unreachable }: Round, rate: number, seconds: number, config: Parameters<typeof createAppContext>[0]): Promise<string> {
  const ctx = await createAppContext({ ...config, logger: createLogger('error', { silent: true }), service: true });
  const tag = `${label}-${Date.now()}`;
  const receivers = await Promise.all([0, 1, 2, 3, 4].map((i) => receiver(slow && i === 0 ? 5000 : 0, tag)));
  const admin = (await ctx.services.users.create({ username: `hookbench${Date.now()}`, role: 'admin' }, { actor: 'bench' })).user;
  const hooks = [];
  for (const r of receivers)
    hooks.push((await ctx.services.webhooks.create({ url: r.url, events: ['contact.updated'] }, { id: admin.id, username: admin.username }, { actor: 'bench' })).webhook.id);
  // Receivers that are gone: each delivery is refused, and its retry (5 s later) too, so they double the calls.
  const gone: string[] = [];
  for (let i = 0; i < unreachable; i++)
    gone.push(
      (await ctx.services.webhooks.create({ url: await unreachableUrl(), events: ['contact.updated'] }, { id: admin.id, username: admin.username }, { actor: 'bench' })).webhook.id,
    );
  const server = await startServer(ctx, { api: false, sync: false, port: 0, host: '127.0.0.1' });
  const total = Math.round((rate * seconds) / 60);
  const started = Date.now();
  for (let i = 0; i < total; i++) {
    const due = started + (i * 60_000) / rate;
    if (due > Date.now()) await pause(due - Date.now());
    // One event per commit, stamped with the commit's time (company news: no account, no user).
    await ctx.db.sequelize.query(
      // One statement (a prepared statement takes one): the event and its wake-up in the same commit.
      `WITH e AS (INSERT INTO events (type, payload) VALUES ('contact.updated', jsonb_build_object('tag', $1::text, 't', $2::bigint)) RETURNING 1)
       SELECT pg_notify('crm_events', '') FROM e`,
      { bind: [tag, Date.now()] },
    );
  }
  // The fast receivers' deliveries have a minute to finish; the slow one's backlog is what it is.
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && receivers.slice(slow ? 1 : 0).some((r) => r.lags.length < total)) await pause(500);
  const line = receivers
    .map((r, i) => `${slow && i === 0 ? 'slow' : 'fast'} ${r.lags.length}/${total} p50 ${(pct(r.lags, 50) / 1000).toFixed(2)} s p95 ${(pct(r.lags, 95) / 1000).toFixed(2)} s`)
    .join('; ');
  // The last answers are recorded a moment after they arrive; the server's stop closes the context.
  await pause(1000);
  const phases = await phaseSplit(ctx, hooks.slice(slow ? 1 : 0));
  // The next round measures its own five webhooks only: these would otherwise call closed receivers.
  await ctx.db.sequelize.query('UPDATE webhooks SET enabled = false WHERE id = ANY ($1::uuid[])', { bind: [[...hooks, ...gone]] });
  await server.stop();
  for (const r of receivers) await r.close();
  return `${label}: ${line}; fast receivers' p50 phases: ${phases}; load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`;
}

/**
 * Where a fast receiver's time went, from the queue's own columns: from the event's commit to its
 * delivery row (the claim), and from the row to the call's start (the lease; attempted_at is the
 * recording transaction's start, the call took duration_ms before it).
 */
async function phaseSplit(ctx: Awaited<ReturnType<typeof createAppContext>>, webhookIds: string[]): Promise<string> {
  const [row] = await ctx.db.sequelize.query<{ claim: number; lease: number; call: number }>(
    `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM d.created_at - d.event_created_at)) AS claim,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM a.attempted_at - d.created_at) - a.duration_ms / 1000.0) AS lease,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY a.duration_ms / 1000.0) AS call
       FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id AND a.attempt = 1
      WHERE d.webhook_id = ANY ($1::uuid[])`,
    { bind: [webhookIds], type: 'SELECT' as never },
  );
  return `claim ${Number(row.claim).toFixed(2)} s, lease ${Number(row.lease).toFixed(2)} s, call ${Number(row.call).toFixed(2)} s`;
}

async function main(): Promise<void> {
  const rate = Number(process.argv[2] ?? 1000);
  const seconds = Number(process.argv[3] ?? 60);
  const db = await openBenchDatabase('webhooks', { WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1' });
  const config = { config: db.ctx.config };
  const lines: string[] = [];
  try {
    lines.push(await round({ label: 'baseline (five 2xx receivers)', slow: false, unreachable: 0 }, rate, seconds, config));
    lines.push(await round({ label: 'one slow receiver (5 s)', slow: true, unreachable: 0 }, rate, seconds, config));
    lines.push(await round({ label: 'one slow receiver and five unreachable ones beside them', slow: true, unreachable: 5 }, rate, seconds, config));
  } finally {
    await db.close();
  }
  console.log(`webhooks bench: ${rate} events a minute for ${seconds} s to 5 webhooks (shared machine)\n  ${lines.join('\n  ')}`);
}

await main();
