/**
 * The mail sync at company scale: 200 real Cyrus accounts with a few dozen messages each.
 *   npm run build && node --import=tsx/esm bench/sync-scale-bench.ts        (the workers of part 2 run dist/)
 * Env: BENCH_JMAP_SESSION_URL (http://127.0.0.1:18080/.well-known/jmap), BENCH_ACCOUNTS (200),
 *      BENCH_MESSAGES (30 per account), BENCH_CHANGED (20), BENCH_INTERVAL (30s, the default),
 *      BENCH_WORKER_ROUNDS (3), BENCH_CONCURRENCY (4, the default).
 *
 * Mail users scale-001@example.test ... are created (or their passwords reset) and seeded over IMAP
 * by scripts/jmap/add-user.sh and seed.sh; a re-run reuses them. Every JMAP request goes through a
 * counting proxy (test/support/counting-proxy.ts), so request counts are what the server saw.
 *   1. One worker (a child process, so its RSS and connections are its own): the first sync of every
 *      account, then a round with every account due at once while all are idle, and a round in which
 *      BENCH_CHANGED accounts have one new message: time per round, JMAP requests per account, peak
 *      RSS, database connections used.
 *   2. Two `serve --no-api` workers on the same PostgreSQL with the default schedule for
 *      BENCH_WORKER_ROUNDS intervals, new mail delivered to BENCH_CHANGED accounts meanwhile: every
 *      account synced exactly once per turn by one of them, no turn skipped, nothing stored twice;
 *      delivery-to-visible time, requests per check, RSS and connections of each worker.
 */
import { execFile, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { QueryTypes, type Sequelize } from 'sequelize';
import { createAppContext } from '../src/app/context.js';
import { AppConfig } from '../src/config/config.js';
import { EmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { JmapClient } from '../src/jmap/index.js';
import { createLogger } from '../src/logging/logger.js';
import { startCountingProxy, type CountingProxy } from '../test/support/counting-proxy.js';
import { appendMessage, buildMessage } from '../test/support/imap.js';

const SESSION_URL = process.env.BENCH_JMAP_SESSION_URL ?? 'http://127.0.0.1:18080/.well-known/jmap';
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 200);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 30);
const CHANGED = Number(process.env.BENCH_CHANGED ?? 20);
const INTERVAL = process.env.BENCH_INTERVAL ?? '30s';
const WORKER_ROUNDS = Number(process.env.BENCH_WORKER_ROUNDS ?? 3);
const CONCURRENCY = process.env.BENCH_CONCURRENCY ?? '4';
const IMAP_PORT = Number(process.env.JMAP_IMAP_PORT ?? 11143);
const thisFile = fileURLToPath(import.meta.url);
const repo = path.resolve(path.dirname(thisFile), '..');
const run = `${Date.now().toString(36)}${crypto.randomBytes(2).toString('hex')}`;

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];

interface MailUser {
  user: string;
  pass: string;
}

function mailUsers(): MailUser[] {
  return Array.from({ length: ACCOUNTS }, (_, i) => {
    const n = String(i + 1).padStart(3, '0');
    return { user: `scale-${n}@example.test`, pass: `scale-pw-${n}` };
  });
}

async function pool<T>(items: T[], width: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        await work(items[i], i);
      }
    }),
  );
}

/** Creates the users (idempotent) and tops each mailbox up to MESSAGES over IMAP. */
async function seed(users: MailUser[]): Promise<void> {
  const env = { ...process.env, JMAP_HTTP_PORT: new URL(SESSION_URL).port };
  const started = Date.now();
  let seeded = 0;
  await pool(users, 4, async (u, i) => {
    await promisify(execFile)('bash', [path.join(repo, 'scripts/jmap/add-user.sh'), u.user, u.pass], { env });
    const client = new JmapClient({ sessionUrl: SESSION_URL, credentials: { kind: 'basic', username: u.user, password: u.pass } });
    const accountId = await client.mailAccountId();
    const { total } = await client.callOne<{ total: number }>('Email/query', { accountId, limit: 1, calculateTotal: true });
    if (total < MESSAGES) {
      await promisify(execFile)('bash', [path.join(repo, 'scripts/jmap/seed.sh'), u.user, u.pass, String(MESSAGES - total)], { env });
      seeded++;
    }
    if ((i + 1) % 50 === 0) console.log(`  mail users ready: ${i + 1}/${users.length}`);
  });
  console.log(`mail users: ${users.length} ready (${seeded} seeded now) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function deliver(u: MailUser, subject: string): Promise<number> {
  const raw = buildMessage({ from: { name: 'Scale Sender', email: 'scale.sender@customer.example' }, to: u.user, subject, body: subject });
  await appendMessage({ user: u.user, pass: u.pass, mailbox: 'INBOX', raw, port: IMAP_PORT });
  return Date.now();
}

function appEnv(databaseUrl: string, dataDir: string, sessionUrl: string, key: string): Record<string, string> {
  return {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    CRM_DATA_DIR: dataDir,
    JMAP_SESSION_URL: sessionUrl,
    LOG_LEVEL: 'error',
    JWT_ACCESS_SECRET: `${key}a`,
    JWT_REFRESH_SECRET: `${key}r`,
    CRM_ENCRYPTION_KEY: key,
    BCRYPT_ROUNDS: '4',
    SYNC_INTERVAL: INTERVAL,
    SYNC_CONCURRENCY: CONCURRENCY,
  };
}

const withAppName = (url: string, name: string) => `${url}${url.includes('?') ? '&' : '?'}application_name=${name}`;

async function count(sequelize: Sequelize, sql: string, bind: Record<string, unknown> = {}): Promise<number> {
  const [row] = await sequelize.query<{ n: number }>(sql, { bind, type: QueryTypes.SELECT });
  return Number(row.n);
}

/** Peak of the backends a process name holds, sampled every 20 ms until stopped. */
function sampleConnections(sequelize: Sequelize, appName: string): { stop: () => Promise<number> } {
  let peak = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const n = await count(sequelize, 'SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $appName', { appName });
      peak = Math.max(peak, n);
      await sleep(20);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return peak;
    },
  };
}

// ------------------------------------------------------------------------------- part 1: one worker

interface RoundReport {
  ms: number;
  runs: number;
  ok: number;
  stored: number;
  requests: number[];
}

/** Child: one worker process doing the rounds; the parent delivers mail and counts requests in between. */
async function workerChild(): Promise<void> {
  const ctx = await createAppContext({ config: AppConfig.fromEnv(process.env), logger: createLogger('error', { silent: true }), migrate: false });
  const sync = ctx.services.mailSync;
  const say = (msg: unknown) => process.stdout.write(`${JSON.stringify(msg)}\n`);
  const round = async (): Promise<RoundReport> => {
    // Every account's turn at the same instant: the round is then as long as the workers need.
    await ctx.db.sequelize.query('UPDATE mail_sync_states SET next_sync_at = now()');
    const started = performance.now();
    const results = await sync.runDueAccounts();
    return {
      ms: performance.now() - started,
      runs: results.length,
      ok: results.filter((r) => r.outcome === 'ok').length,
      stored: results.reduce((a, r) => a + r.stored, 0),
      requests: results.map((r) => r.requests),
    };
  };
  process.stdin.setEncoding('utf8');
  let buffer = '';
  for await (const chunk of process.stdin) {
    buffer += chunk as string;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const command = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (command === 'round') say(await round());
      if (command === 'quit') {
        say({ maxRssMb: mb(process.resourceUsage().maxRSS * 1024) });
        await ctx.close();
        process.exit(0);
      }
    }
  }
}

async function partOne(sequelize: Sequelize, env: Record<string, string>, proxy: CountingProxy, users: MailUser[]) {
  const appName = `bench-worker-${run}`;
  // A long interval here: the next turn after a run must not fall inside the same measured round
  // (with 30 s, a third of the accounts would come due again during a 10 s round and run twice).
  const child = spawn(process.execPath, ['--import', 'tsx', thisFile, 'worker'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env, SYNC_INTERVAL: '1h', DATABASE_URL: withAppName(env.DATABASE_URL, appName) },
    stdio: ['pipe', 'pipe', 'inherit'],
    cwd: repo,
  });
  const lines: string[] = [];
  let pending = '';
  const waiters: Array<(line: string) => void> = [];
  child.stdout.on('data', (d: Buffer) => {
    pending += d.toString();
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  const ask = <T>(command: string): Promise<T> =>
    new Promise((resolve) => {
      waiters.push((line) => resolve(JSON.parse(line) as T));
      child.stdin.write(`${command}\n`);
    });
  const measured = async (label: string) => {
    proxy.reset();
    const connections = sampleConnections(sequelize, appName);
    const report = await ask<RoundReport>('round');
    const peakConnections = await connections.stop();
    const perUser = users.map((u) => proxy.countFor(u.user));
    console.log(
      `${label}: ${report.runs} accounts in ${(report.ms / 1000).toFixed(2)} s (${report.ok} ok, ${report.stored} stored), ` +
        `JMAP requests per account min/max ${Math.min(...perUser)}/${Math.max(...perUser)}, total ${perUser.reduce((a, b) => a + b, 0)}, ` +
        `database connections at most ${peakConnections}, load ${load()}`,
    );
    return { ...report, perUser, peakConnections };
  };

  const first = await measured('first sync of every account');
  const idle = await measured('round, all idle');
  const changed = users.slice(0, CHANGED);
  for (const [i, u] of changed.entries()) await deliver(u, `Scale ${run} one-${i}`);
  const someNew = await measured(`round, ${CHANGED} with one new message`);
  const { maxRssMb } = await ask<{ maxRssMb: number }>('quit');
  console.log(`worker peak RSS ${maxRssMb} MB`);
  const idleUsers = new Set(users.slice(CHANGED).map((u) => u.user));
  return {
    firstSyncS: +(first.ms / 1000).toFixed(2),
    idleRoundS: +(idle.ms / 1000).toFixed(2),
    changedRoundS: +(someNew.ms / 1000).toFixed(2),
    idleRoundRequestsPerAccount: { min: Math.min(...idle.perUser), max: Math.max(...idle.perUser) },
    changedRoundRequestsPerIdleAccount: Math.max(...users.filter((u) => idleUsers.has(u.user)).map((u) => proxy.countFor(u.user))),
    changedRoundStored: someNew.stored,
    peakRssMb: maxRssMb,
    databaseConnections: Math.max(first.peakConnections, idle.peakConnections, someNew.peakConnections),
  };
}

// ---------------------------------------------------------------------------- part 2: two workers

interface Worker {
  name: string;
  pid: number;
  output: () => string;
  peakRssMb: () => number;
  stop: () => Promise<number | null>;
}

function startWorker(name: string, env: Record<string, string>): Promise<Worker> {
  const child = spawn(path.join(repo, 'bin/crm-admin'), ['serve', '--no-api'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env, LOG_LEVEL: 'info', CRM_READY_URL: 'none', DATABASE_URL: withAppName(env.DATABASE_URL, name) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('"crm-admin serve started"')) {
        resolve({
          name,
          pid: child.pid!,
          output: () => out,
          // VmHWM: the peak resident set of the process so far.
          peakRssMb: () => Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024,
          stop: () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    void exited.then((code) => reject(new Error(`worker ${name} exited with ${code}`)));
  });
}

interface RunLine {
  worker: string;
  accountId: string;
  dueAt: string | null;
  outcome: string;
  requests: number;
}

function runLines(w: Worker): RunLine[] {
  return w
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{') && l.includes('"mail sync run"'))
    .map((l) => JSON.parse(l) as Omit<RunLine, 'worker'>)
    .map((l) => ({ worker: w.name, accountId: l.accountId, dueAt: l.dueAt ?? null, outcome: l.outcome, requests: l.requests }));
}

async function partTwo(sequelize: Sequelize, env: Record<string, string>, proxy: CountingProxy, users: MailUser[], accountByUser: Map<string, string>) {
  const intervalMs = AppConfig.fromEnv(env).syncIntervalSeconds * 1000;
  // Everyone due now; from their first run on, each account keeps its own turn of the interval.
  await sequelize.query('UPDATE mail_sync_states SET next_sync_at = NULL');
  const names = [`bench-a-${run}`, `bench-b-${run}`];
  const workers = await Promise.all(names.map((n) => startWorker(n, env)));
  const connections = names.map((n) => sampleConnections(sequelize, n));
  // The first run of every account (all due at once) is not the steady state: measure after it.
  const firstRunsDone = () => new Set(workers.flatMap(runLines).map((r) => r.accountId)).size >= accountByUser.size;
  while (!firstRunsDone()) await sleep(200);
  proxy.reset();
  const started = Date.now();
  const windowMs = WORKER_ROUNDS * intervalMs;
  console.log(`two workers: first run of every account done; measuring ${WORKER_ROUNDS} intervals of ${intervalMs / 1000} s ...`);

  // New mail at random moments of the window; how long until the database (and so the API) has it.
  const latencies: number[] = [];
  const changed = users.slice(CHANGED, 2 * CHANGED);
  const deliveries = changed.map(async (u, i) => {
    await sleep(Math.random() * (windowMs - intervalMs));
    const subject = `Scale ${run} fresh-${i}`;
    const sent = await deliver(u, subject);
    for (;;) {
      const n = await count(sequelize, 'SELECT count(*) AS n FROM emails WHERE email_account_id = $id AND subject = $subject', { id: accountByUser.get(u.user), subject });
      if (n > 0) return latencies.push((Date.now() - sent) / 1000);
      await sleep(200);
    }
  });
  await Promise.all(deliveries);
  await sleep(Math.max(0, started + windowMs + 2000 - Date.now()));
  const rss = workers.map((w) => +w.peakRssMb().toFixed(1));
  const codes = await Promise.all(workers.map((w) => w.stop()));
  const peakConnections = await Promise.all(connections.map((c) => c.stop()));

  const runs = workers.flatMap(runLines);
  const byAccount = new Map<string, RunLine[]>();
  for (const r of runs) byAccount.set(r.accountId, [...(byAccount.get(r.accountId) ?? []), r]);
  let twice = 0;
  let skipped = 0;
  let fewest = Infinity;
  for (const id of accountByUser.values()) {
    const turns = (byAccount.get(id) ?? [])
      .filter((r) => r.dueAt !== null)
      .map((r) => Date.parse(r.dueAt!))
      .sort((a, b) => a - b);
    twice += turns.length - new Set(turns).size;
    for (let i = 1; i < turns.length; i++) if (turns[i] - turns[i - 1] !== intervalMs) skipped++;
    fewest = Math.min(fewest, turns.length);
  }
  const requestsPerRun = runs.filter((r) => r.outcome === 'ok').map((r) => r.requests);
  const hours = (Date.now() - started) / 3_600_000;
  // A check is the one API request carrying Email/changes; a worker's first run of an account also
  // fetches the session (two HTTP requests with Cyrus's redirect), once per process.
  const checks = proxy.requests.filter((r) => r.calls.includes('Email/changes')).length;
  const sessionRequests = proxy.requests.filter((r) => r.method === 'GET').length;
  const duplicates = await count(sequelize, `SELECT count(*) AS n FROM (SELECT email_account_id, jmap_id FROM emails GROUP BY 1, 2 HAVING count(*) > 1) d`);
  const expected = await count(sequelize, 'SELECT count(*) AS n FROM emails');
  const report = {
    intervalS: intervalMs / 1000,
    runs: runs.length,
    byWorker: Object.fromEntries(workers.map((w) => [w.name, runs.filter((r) => r.worker === w.name).length])),
    // 'interrupted': runs under way when the workers were stopped at the end (they resume next time).
    runsNotOk: runs.filter((r) => r.outcome !== 'ok').reduce<Record<string, number>>((byOutcome, r) => ({ ...byOutcome, [r.outcome]: (byOutcome[r.outcome] ?? 0) + 1 }), {}),
    turnsServedTwice: twice,
    turnsSkipped: skipped,
    fewestTurnsOfAnAccount: fewest,
    requestsPerRun: { min: Math.min(...requestsPerRun), median: percentile(requestsPerRun, 50), max: Math.max(...requestsPerRun) },
    checksPerAccountPerHour: +(checks / users.length / hours).toFixed(1),
    otherRequestsPerCheck: +((proxy.requests.length - checks - sessionRequests) / checks).toFixed(3),
    sessionRequestsPerAccount: +(sessionRequests / users.length).toFixed(2),
    deliveryToVisibleS: { n: latencies.length, p50: +percentile(latencies, 50).toFixed(1), max: +Math.max(...latencies).toFixed(1), target: '<= 60' },
    duplicateRows: duplicates,
    emailRows: expected,
    peakRssMb: Object.fromEntries(workers.map((w, i) => [w.name, rss[i]])),
    databaseConnections: Object.fromEntries(workers.map((w, i) => [w.name, peakConnections[i]])),
    exitCodes: codes,
  };
  console.log(`two workers: ${runs.length} runs (${Object.values(report.byWorker).join(' + ')}), turns served twice ${twice}, skipped ${skipped}, load ${load()}`);
  return report;
}

// ---------------------------------------------------------------------------------------- main

async function main(): Promise<void> {
  console.log(`load average at start: ${load()} on ${os.cpus().length} CPUs`);
  const users = mailUsers();
  await seed(users);
  const tmp = path.join('/tmp', `crm-sync-scale-${process.pid}`);
  fs.mkdirSync(tmp, { recursive: true, mode: 0o755 });
  fs.chmodSync(tmp, 0o755);
  const pg = new EmbeddedPostgres(path.join(tmp, 'pg'));
  const { url, ownerUrl } = await pg.start();
  const proxy = await startCountingProxy(SESSION_URL);
  // Migrations run as the schema's owner (ADR 0171).
  const env = { ...appEnv(url, path.join(tmp, 'data'), proxy.sessionUrl, crypto.randomBytes(32).toString('hex')), DATABASE_OWNER_URL: ownerUrl };
  const ctx = await createAppContext({ config: AppConfig.fromEnv(env), logger: createLogger('error', { silent: true }) });
  try {
    const accountByUser = new Map<string, string>();
    await pool(users, 4, async (u, i) => {
      const { user } = await ctx.services.users.create({ username: `scale${i}${run}`, role: 'member' }, { actor: 'bench' });
      accountByUser.set(u.user, (await ctx.services.emailAccounts.add(user.id, { email: u.user, emailPassword: u.pass }, { actor: 'bench' }, { requestSync: false })).id);
    });
    console.log(`linked ${accountByUser.size} accounts`);
    const one = await partOne(ctx.db.sequelize, env, proxy, users);
    const two = await partTwo(ctx.db.sequelize, env, proxy, users, accountByUser);
    console.log(
      JSON.stringify({ accounts: ACCOUNTS, messagesEach: MESSAGES, concurrency: Number(CONCURRENCY), oneWorker: one, twoWorkers: two, loadAverageAtEnd: load() }, null, 2),
    );
  } finally {
    await proxy.close();
    await ctx.close();
    await pg.stop().catch(() => {});
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'worker') {
  workerChild().catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
