/**
 * Live updates (GET /api/events) on one API instance:
 *   1. 1,000 open streams: the server's RSS growth, and its CPU while idle (heartbeats included);
 *   2. one email.updated (a read mark committed in PostgreSQL) fanned out to all 1,000: latency from the
 *      UPDATE being sent to the event parsed on each client socket, p50/p99 over the rounds (target
 *      p50 < 50 ms, p99 < 250 ms);
 *   3. a new message delivered to the mail server (IMAP APPEND on the test Cyrus) -> email.created on a
 *      stream, with "sync now" (POST /api/email-accounts/:id/sync).
 *
 *   node --import=tsx/esm bench/events-bench.ts
 *
 * The server runs in a child process (this file with --serve), so its memory and CPU are its own; the
 * clients run here. Env: BENCH_STREAMS (1000), BENCH_ROUNDS (20), BENCH_IDLE_SECONDS (30),
 * BENCH_JMAP_SESSION_URL (http://127.0.0.1:18080/.well-known/jmap; the mail part is skipped when it
 * does not answer), BENCH_DATABASE_URL (else a throwaway embedded PostgreSQL).
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { QueryTypes } from 'sequelize';
import { createAppContext } from '../src/app/context.js';
import { startServer } from '../src/app/server.js';
import { AppConfig } from '../src/config/config.js';
import { createLogger } from '../src/logging/logger.js';
import { User } from '../src/models/index.js';
import { appendMessage, buildMessage, createTestMailUser } from '../test/support/imap.js';
import { openBenchDatabase } from './bench-database.js';
import { percentile } from './bench-http.js';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 30);
const PER_USER = 5;
const SESSION_URL = process.env.BENCH_JMAP_SESSION_URL ?? 'http://127.0.0.1:18080/.well-known/jmap';
const thisFile = fileURLToPath(import.meta.url);

/** The child: one API instance (no sync scheduler) on the given database, printing its URL. */
async function serve(): Promise<void> {
  const config = AppConfig.fromEnv(process.env);
  const ctx = await createAppContext({ config, logger: createLogger('error', { silent: true }), migrate: false, poolMax: 20 });
  const running = await startServer(ctx, { api: true, sync: false, port: 0, host: '127.0.0.1' });
  process.stdout.write(`URL ${running.url}\n`);
  process.once('SIGTERM', () => void running.stop().then(() => process.exit(0)));
}

/** A stream client: counts events by id and records when each id arrived. */
function openStream(url: string, token: string, onEvent: (id: number, type: string, data: string) => void): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' }, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream: HTTP ${res.statusCode}`));
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /^id: (\d+)$/m.exec(block)?.[1];
          const type = /^event: (.+)$/m.exec(block)?.[1];
          const data = /^data: (.+)$/m.exec(block)?.[1];
          if (id && type && data) onEvent(Number(id), type, data);
        }
      });
      resolve(req);
    });
    req.on('error', reject);
  });
}

function procStats(pid: number): { rssMb: number; cpuMs: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)![1]);
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime (fields 14, 15; after the command name: 12, 13), in clock ticks (100 per second here).
  const ticks = Number(stat[11]) + Number(stat[12]);
  return { rssMb: rssKb / 1024, cpuMs: ticks * 10 };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const env = { JMAP_SESSION_URL: SESSION_URL, EVENTS_MAX_STREAMS_PER_USER: String(PER_USER), BCRYPT_ROUNDS: '4' };
  const db = await openBenchDatabase('events', env);
  const { ctx } = db;
  const sql = ctx.db.sequelize;
  const child = spawn(process.execPath, ['--import', 'tsx', thisFile, '--serve'], {
    env: {
      ...process.env,
      ...env,
      NODE_ENV: 'production',
      DATABASE_URL: db.url,
      CRM_DATA_DIR: ctx.config.dataDir,
      LOG_LEVEL: 'error',
      JWT_ACCESS_SECRET: ctx.config.secrets.jwtAccessSecret,
      JWT_REFRESH_SECRET: ctx.config.secrets.jwtRefreshSecret,
      CRM_ENCRYPTION_KEY: '4f5edb03a4e3e27b1110244b3c52c42c759985bda1661a5ac46271f550165462',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const base = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /URL (\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
    });

    // 200 users x 5 streams, all members (viewers with canRead) of one team account holding one email.
    const users = Math.ceil(STREAMS / PER_USER);
    const suffix = crypto.randomBytes(3).toString('hex');
    await sql.query(
      `INSERT INTO users (username, first_name, changed_password, email_setup_skipped) SELECT 'ev${suffix}' || g, 'Bench', true, true FROM generate_series(1, ${users}) g`,
    );
    const rows = await User.findAll({ where: { firstName: 'Bench' } });
    const owner = rows[0];
    const accountId = crypto.randomUUID();
    const [contactId, emailRowId] = [crypto.randomUUID(), crypto.randomUUID()];
    for (const statement of [
      "INSERT INTO email_accounts (id, user_id, email, email_password, jmap_account_id, is_primary) VALUES ($1, $2, 'team@bench.example', 'x', 'team', true)",
      "INSERT INTO email_account_members (email_account_id, user_id, role, can_read) SELECT $1, id, 'viewer', true FROM users WHERE first_name = 'Bench' AND id <> $2",
      "INSERT INTO contacts (id, user_id, email_account_id, email) VALUES ($3, $2, $1, 'client@bench.example')",
      "INSERT INTO emails (id, user_id, email_account_id, contact_id, jmap_id, subject) VALUES ($4, $2, $1, $3, 'j1', 'Bench')",
    ]) {
      await sql.query(statement, { bind: [accountId, owner.id, contactId, emailRowId].slice(0, Math.max(...[...statement.matchAll(/\$(\d)/g)].map((m) => Number(m[1])))) });
    }
    const emailId = (await sql.query<{ id: string }>('SELECT id FROM emails WHERE email_account_id = $1', { bind: [accountId], type: QueryTypes.SELECT }))[0].id;
    const tokens: string[] = [];
    for (const user of rows) tokens.push((await ctx.services.sessions.create(user, { rememberMe: true }, { actor: 'bench' })).accessToken);

    await sleep(1000);
    const before = procStats(child.pid!);
    const arrivals = new Map<number, number[]>();
    const clients: http.ClientRequest[] = [];
    const t0 = Date.now();
    for (let i = 0; i < STREAMS; i++) {
      clients.push(
        await openStream(`${base}/api/events`, tokens[Math.floor(i / PER_USER)], (id, type) => {
          if (type !== 'email.updated') return;
          const at = performance.now();
          let list = arrivals.get(id);
          if (!list) arrivals.set(id, (list = []));
          list.push(at);
        }),
      );
    }
    const openMs = Date.now() - t0;
    await sleep(2000);
    const opened = procStats(child.pid!);
    console.log(`streams: ${STREAMS} open (${users} users x ${PER_USER}) in ${openMs} ms`);
    console.log(
      `server RSS: ${before.rssMb.toFixed(1)} MB before, ${opened.rssMb.toFixed(1)} MB with the streams: +${(opened.rssMb - before.rssMb).toFixed(1)} MB (${(((opened.rssMb - before.rssMb) * 1024) / STREAMS).toFixed(1)} kB per stream)`,
    );
    await sleep(IDLE_SECONDS * 1000);
    const idle = procStats(child.pid!);
    console.log(
      `server CPU at idle with ${STREAMS} streams: ${(((idle.cpuMs - opened.cpuMs) / (IDLE_SECONDS * 1000)) * 100).toFixed(2)} % of one core over ${IDLE_SECONDS} s (one heartbeat round each 25 s)`,
    );

    // Fan-out: one read mark per round, committed here; the latency of each of the streams.
    const latencies: number[] = [];
    const roundP99: number[] = [];
    const fanoutStart = procStats(child.pid!);
    const fanoutWall = Date.now();
    for (let r = 0; r < ROUNDS; r++) {
      const sent = performance.now();
      await sql.query('UPDATE emails SET is_read = NOT is_read WHERE id = $1', { bind: [emailId] });
      const [[row]] = (await sql.query("SELECT max(id) AS last FROM events WHERE type = 'email.updated'")) as [Array<{ last: string }>, unknown];
      const eventId = Number(row.last);
      const deadline = Date.now() + 10_000;
      while ((arrivals.get(eventId)?.length ?? 0) < STREAMS && Date.now() < deadline) await sleep(5);
      const got = arrivals.get(eventId) ?? [];
      if (got.length < STREAMS) console.log(`round ${r}: only ${got.length} of ${STREAMS} streams got event ${eventId}`);
      const ms = got.map((t) => t - sent);
      latencies.push(...ms);
      roundP99.push(percentile(ms, 99));
      await sleep(200);
    }
    console.log(
      `fan-out of one email.updated to ${STREAMS} streams, ${ROUNDS} rounds: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${percentile(latencies, 100).toFixed(1)} ms (UPDATE sent -> event parsed by the client)`,
    );
    const fanoutEnd = procStats(child.pid!);
    const idleCpuPerMs = (idle.cpuMs - opened.cpuMs) / (IDLE_SECONDS * 1000);
    const roundsMs = Date.now() - fanoutWall;
    console.log(
      `server CPU per fan-out to ${STREAMS} streams: ${((fanoutEnd.cpuMs - fanoutStart.cpuMs - idleCpuPerMs * roundsMs) / ROUNDS).toFixed(1)} ms (10 ms clock ticks, idle share removed)`,
    );
    const metrics = await (await fetch(`${base}/api/metrics`)).text();
    const mean = (name: string) => {
      const count = new RegExp(`${name}_count (\\d+)`).exec(metrics)?.[1];
      const sum = new RegExp(`${name}_sum ([\\d.e-]+)`).exec(metrics)?.[1];
      return count && sum ? `mean ${((Number(sum) / Number(count)) * 1000).toFixed(1)} ms over ${count} events` : 'n/a';
    };
    console.log(
      `server side: write -> hub (crm_events_lag_seconds) ${mean('crm_events_lag_seconds')}; hub -> written to all sockets (crm_events_fanout_seconds) ${mean('crm_events_fanout_seconds')}`,
    );
    for (const c of clients) c.destroy();

    await newMail(base, ctx.services.sessions, owner);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await db.close();
  }
}

/** New mail at the mail server -> email.created on the owner's stream, with "sync now". */
async function newMail(
  base: string,
  sessions: { create: (u: User, o: { rememberMe: boolean }, m: { actor: string }) => Promise<{ accessToken: string }> },
  user: User,
): Promise<void> {
  try {
    await fetch(SESSION_URL);
  } catch {
    console.log(`new mail -> email.created: skipped (no JMAP server at ${SESSION_URL})`);
    return;
  }
  process.env.TEST_JMAP_SESSION_URL ??= SESSION_URL;
  const mail = await createTestMailUser('evbench');
  const { accessToken } = await sessions.create(user, { rememberMe: true }, { actor: 'bench' });
  const headers = { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' };
  const linked = await fetch(`${base}/api/email-accounts`, { method: 'POST', headers, body: JSON.stringify({ email: mail.user, emailPassword: mail.pass }) });
  if (linked.status !== 201) throw new Error(`link: ${linked.status} ${await linked.text()}`);
  const accountId = ((await linked.json()) as { data: { emailAccount: { id: string } } }).data.emailAccount.id;
  await sleep(2000);
  let resolveNext: ((t: number) => void) | undefined;
  const stream = await openStream(`${base}/api/events`, accessToken, (_id, type, data) => {
    if (type === 'email.created' && data.includes(accountId)) resolveNext?.(performance.now());
  });
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    const arrived = new Promise<number>((resolve) => (resolveNext = resolve));
    const t0 = performance.now();
    await appendMessage({
      user: mail.user,
      pass: mail.pass,
      mailbox: 'INBOX',
      raw: buildMessage({ from: `c${i}@clients.example`, to: mail.user, subject: `Bench ${i}`, body: 'b' }),
    });
    const res = await fetch(`${base}/api/email-accounts/${accountId}/sync`, { method: 'POST', headers: { Authorization: `Bearer ${accessToken}` } });
    if (res.status >= 300) throw new Error(`sync now: ${res.status}`);
    samples.push((await Promise.race([arrived, sleep(30_000).then(() => Number.NaN)])) - t0);
    await sleep(500);
  }
  stream.destroy();
  console.log(
    `new mail (IMAP APPEND) + sync now -> email.created on the stream: ${samples.map((s) => s.toFixed(0)).join(', ')} ms (median ${percentile(samples, 50).toFixed(0)} ms)`,
  );
}

if (process.argv.includes('--serve')) {
  void serve();
} else {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
