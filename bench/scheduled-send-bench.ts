/**
 * Scheduled send at scale (issue 47): N emails (default 1,000) scheduled for the same second go out
 * through the scheduled-sends job of two instances (two `crm-admin serve --no-sync` processes on one
 * database, as in production) and the test Cyrus with its SMTP relay, where every delivery is
 * counted: none may be there twice. Target: all out within 60 s of their sendAt. The baseline of the
 * same run: the same load on one instance (alternating rounds, the machine is shared).
 * Needs the build (`npm run build`: the serve processes run bin/crm-admin) and the test Cyrus
 * (scripts/jmap/start.sh, started here).
 *
 * The emails go from `mailboxes` sending mailboxes in turn (one Cyrus user each): the mail server
 * takes one mailbox's writes one at a time, which bounds what one mailbox can send.
 *
 *   node --import=tsx/esm bench/scheduled-send-bench.ts [emails=1000] [rounds=1] [mailboxes=1]
 * (not `npx tsx`: its require hook would load the lazily required modules a second time, as CommonJS,
 * beside models that were never initialised; ADR 0126)
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppContext } from '../src/app/context.js';
import { startServe, type ServeProcess } from '../test/support/cli.js';
import { createTestMailUser } from '../test/support/imap.js';
import { relayDeliveries } from '../test/support/relay-log.js';
import { openBenchDatabase, type BenchDatabase } from './bench-database.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function round(instances: number, emails: number, mailboxes: number, db: BenchDatabase): Promise<string> {
  const ctx: AppContext = db.ctx;
  const senders = await Promise.all(Array.from({ length: mailboxes }, (_, i) => createTestMailUser(`bsched-a${i}`)));
  const bob = await createTestMailUser('bsched-bob');
  const { user } = await ctx.services.users.create({ username: `bsched${crypto.randomBytes(4).toString('hex')}`, role: 'member' }, { actor: 'bench' });
  const accounts = [];
  for (const sender of senders)
    accounts.push(await ctx.services.emailAccounts.add(user.id, { email: sender.user, emailPassword: sender.pass }, { actor: 'bench' }, { requestSync: false }));
  const tag = crypto.randomBytes(4).toString('hex');
  const sendAt = new Date(Date.now() + 60_000 + emails * 20);
  const scheduledStart = Date.now();
  for (let i = 0; i < emails; i++) {
    const message = ctx.services.sending.start(user.id, { kind: 'new' });
    const emailAccountId = accounts[i % accounts.length].id;
    await ctx.services.scheduledEmails.schedule(message, { emailAccountId, to: [{ email: bob.user }], subject: `B${tag} ${i}`, text: 'bench' }, sendAt, {
      actor: 'bench',
    });
  }
  const scheduleMs = Date.now() - scheduledStart;
  // The instances start only now: nothing is due before sendAt anyway.
  const servers: ServeProcess[] = [];
  for (let i = 0; i < instances; i++) servers.push(await startServe(['--no-sync'], { ...db.env, HOST: '127.0.0.1', LOG_LEVEL: 'info' }));
  while (Date.now() < sendAt.getTime()) await pause(200);
  const count = () =>
    ctx.db.sequelize.query<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM scheduled_emails WHERE user_id = $1 GROUP BY 1`, {
      bind: [user.id],
      type: 'SELECT' as never,
    });
  let lastSent = sendAt.getTime();
  for (;;) {
    const rows = await count();
    const open = rows.filter((r) => r.status === 'scheduled' || r.status === 'sending').reduce((a, r) => a + r.n, 0);
    if (open === 0 || Date.now() - sendAt.getTime() > 300_000) break;
    lastSent = Date.now();
    await pause(250);
  }
  const rows = await count();
  for (const s of servers) {
    s.child.kill('SIGTERM');
    await s.exited;
  }
  const delivered = new Map<number, number>();
  for (let i = 0; i < emails; i++) delivered.set(i, relayDeliveries(`B${tag} ${i}`).length);
  const twice = [...delivered.values()].filter((n) => n > 1).length;
  const missing = [...delivered.values()].filter((n) => n === 0).length;
  return (
    `${instances} instance(s), ${mailboxes} sending mailbox(es): ${emails} scheduled in ${(scheduleMs / 1000).toFixed(1)} s; all out ${((lastSent - sendAt.getTime()) / 1000).toFixed(1)} s after sendAt ` +
    `(${rows.map((r) => `${r.status} ${r.n}`).join(', ')}); at the relay: ${twice} twice, ${missing} missing; load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`
  );
}

async function main(): Promise<void> {
  const emails = Number(process.argv[2] ?? 1000);
  const rounds = Number(process.argv[3] ?? 1);
  const mailboxes = Number(process.argv[4] ?? 1);
  const repo = fileURLToPath(new URL('../', import.meta.url));
  execFileSync('bash', [path.join(repo, 'scripts/jmap/start.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });
  // Started just above: the test helpers that make mail users must not look for a test run's lease.
  process.env.CRM_TEST_EXTERNAL_JMAP = '1';
  const sessionUrl = process.env.TEST_JMAP_SESSION_URL ?? `http://127.0.0.1:${process.env.JMAP_HTTP_PORT ?? 18080}/.well-known/jmap`;
  const db = await openBenchDatabase('scheduled', { JMAP_SESSION_URL: sessionUrl, SEND_RATE_LIMIT: '100000' });
  const lines: string[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      lines.push(await round(2, emails, mailboxes, db));
      lines.push(await round(1, emails, mailboxes, db));
    }
  } finally {
    await db.close();
  }
  console.log(`scheduled-send bench (shared machine; baseline = one instance, same run):\n  ${lines.join('\n  ')}`);
}

await main();
