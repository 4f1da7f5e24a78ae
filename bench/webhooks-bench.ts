/**
 * Webhook delivery under load (issue 48): events committed into the outbox at RATE a minute for
 * SECONDS, to 5 webhooks, through the webhook-deliveries job of a running instance (startServer, the
 * same runner as serve). Reports, per receiver, the time from the commit to the receiver (p50, p95) and
 * how many arrived. Round "slow": one receiver answers in 5 s; round "baseline": all five answer at
 * once (alternating, the machine is shared). Targets: p50 < 2 s for a 2xx receiver, and the four fast
 * receivers' figures with a slow one beside them close to the baseline's (a slow receiver does not
 * back up the others).
 *
 *   npx tsx bench/webhooks-bench.ts [rate=1000] [seconds=60]
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

async function round(label: string, slow: boolean, rate: number, seconds: number, config: Parameters<typeof createAppContext>[0]): Promise<string> {
  const ctx = await createAppContext({ ...config, logger: createLogger('error', { silent: true }), service: true });
  const tag = `${label}-${Date.now()}`;
  const receivers = await Promise.all([0, 1, 2, 3, 4].map((i) => receiver(slow && i === 0 ? 5000 : 0, tag)));
  const admin = (await ctx.services.users.create({ username: `hookbench${Date.now()}`, role: 'admin' }, { actor: 'bench' })).user;
  const hooks = [];
  for (const r of receivers)
    hooks.push((await ctx.services.webhooks.create({ url: r.url, events: ['contact.updated'] }, { id: admin.id, username: admin.username }, { actor: 'bench' })).webhook.id);
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
  await server.stop();
  for (const r of receivers) await r.close();
  void hooks;
  return `${label}: ${line}; load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`;
}

async function main(): Promise<void> {
  const rate = Number(process.argv[2] ?? 1000);
  const seconds = Number(process.argv[3] ?? 60);
  const db = await openBenchDatabase('webhooks', { WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1' });
  const config = { config: db.ctx.config };
  const lines: string[] = [];
  try {
    lines.push(await round('baseline (five 2xx receivers)', false, rate, seconds, config));
    lines.push(await round('one slow receiver (5 s)', true, rate, seconds, config));
  } finally {
    await db.close();
  }
  console.log(`webhooks bench: ${rate} events a minute for ${seconds} s to 5 webhooks (shared machine)\n  ${lines.join('\n  ')}`);
}

await main();
