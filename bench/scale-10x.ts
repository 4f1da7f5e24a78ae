/**
 * The 10× run (issue 50): the whole service beyond one host, on loopback, under load and faults, as a
 * ratio against a 1× run of the same script.
 *
 *   npm run build && node --import=tsx/esm bench/scale-10x.ts      (serve runs from dist/; needs Cyrus, PgBouncer, root)
 *
 * Both runs: an embedded PostgreSQL (fsync on) behind PgBouncer (session mode), the S3 server of
 * scripts/s3/start.sh (a bucket per run, CRM_STORAGE=s3), Cyrus with real mailboxes, every process a real
 * `crm-admin serve` child. Load: autocannon on GET /api/timesheets/my against every API replica, live
 * streams (GET /api/events) open on each, and acknowledged writes (timesheet uploads into the bucket)
 * spread over the replicas.
 *   1×:  1 API replica, 1 sync worker,  BENCH_ACCOUNTS_1X mailboxes (3),  no faults.
 *   10×: 3 API replicas, 2 sync workers, 10× the mailboxes, 10× the streams and autocannon connections, and
 *        scheduled faults: an API replica killed (SIGKILL) and restarted, a sync worker killed and
 *        restarted, PostgreSQL killed (SIGKILL of the postmaster) and started again on its port.
 * Checked after each run: no response 500 (503 with Retry-After is the promised answer while PostgreSQL is
 * down), every acknowledged upload downloads whole from another replica, every account synced (a successful
 * run after the faults), no account run twice for one turn. Figures: throughput, latencies and sync turn
 * as 10×/1× ratios. Bounded: BENCH_SECONDS (60) of load per run, plus setup. A shared machine: the load
 * average is printed beside the figures, which are not quiet-machine figures.
 */
import { spawn, type ChildProcess, execFile, execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { QueryTypes } from 'sequelize';
import { createAppContext } from '../src/app/context.js';
import { AppConfig } from '../src/config/config.js';
import { EmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { createLogger } from '../src/logging/logger.js';
import { startPgBouncer } from '../test/support/pgbouncer.js';
import { freshBucket } from '../test/support/s3-server.js';
import { multipartBody } from '../test/timesheets/helpers.js';
import { pdfFixture } from '../test/timesheets/fixtures.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const ACCOUNTS_1X = Number(process.env.BENCH_ACCOUNTS_1X ?? 3);
const SESSION_URL = process.env.BENCH_JMAP_SESSION_URL ?? 'http://127.0.0.1:18080/.well-known/jmap';
const repo = fileURLToPath(new URL('../', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const percentile = (xs: number[], p: number) => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]);

interface Shape {
  name: string;
  apis: number;
  workers: number;
  accounts: number;
  streamsPerApi: number;
  connections: number;
  faults: boolean;
}

interface Proc {
  name: string;
  child: ChildProcess;
  port: number;
  output: () => string;
}

function startServe(name: string, args: string[], env: Record<string, string>, port: number): Promise<Proc> {
  const child = spawn(path.join(repo, 'bin/crm-admin'), ['serve', ...args, '--port', String(port)], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env, LOG_LEVEL: 'info', CRM_READY_URL: 'none' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-2_000_000)));
  child.stderr.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-2_000_000)));
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (out.includes('"crm-admin serve started"')) {
        clearInterval(timer);
        resolve({ name, child, port, output: () => out });
      } else if (child.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`${name} exited with ${child.exitCode}: ${out.slice(-2000)}`));
      }
    }, 100);
  });
}

async function stopProc(p: Proc, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise((r) => p.child.once('exit', r));
  p.child.kill(signal);
  await exited;
}

/** A live stream: counts the events it got; ends when destroyed. */
function openStream(port: number, token: string, counter: { events: number; errors: number }): http.ClientRequest {
  const req = http.get({ host: '127.0.0.1', port, path: '/api/events', headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' } }, (res) => {
    if (res.statusCode !== 200) counter.errors++;
    res.on('data', (chunk: Buffer) => (counter.events += (chunk.toString().match(/^id: /gm) ?? []).length));
    res.on('error', () => undefined);
  });
  req.on('error', () => undefined);
  return req;
}

function upload(port: number, token: string, content: Buffer, month: number): Promise<{ status: number; id?: string }> {
  const { body, contentType } = multipartBody([
    { name: 'year', value: '2026' },
    { name: 'month', value: String(month) },
    { name: 'file', filename: 'vykaz.pdf', content },
  ]);
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/timesheets/upload',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': contentType, 'Content-Length': body.length },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => {
          let id: string | undefined;
          try {
            id = (JSON.parse(text) as { data?: { timesheet?: { id?: string } } }).data?.timesheet?.id;
          } catch {
            /* an error page */
          }
          resolve({ status: res.statusCode ?? 0, id });
        });
      },
    );
    req.on('error', () => resolve({ status: 0 }));
    req.end(body);
  });
}

function download(port: number, token: string, id: string): Promise<{ status: number; bytes: Buffer }> {
  return new Promise((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path: `/api/timesheets/${id}/download`, headers: { Authorization: `Bearer ${token}` } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes: Buffer.concat(chunks) }));
      })
      .on('error', () => resolve({ status: 0, bytes: Buffer.alloc(0) }));
  });
}

async function postJson(port: number, urlPath: string, body: unknown, token?: string): Promise<{ status: number; body: { data?: { tokens?: { accessToken?: string } } } }> {
  const res = await fetch(`http://127.0.0.1:${port}${urlPath}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { data?: { tokens?: { accessToken?: string } } } };
}

async function logIn(port: number, username: string, temporaryPassword: string): Promise<string> {
  const login = await postJson(port, '/api/auth/login', { username, password: temporaryPassword });
  const token = login.body.data?.tokens?.accessToken;
  if (login.status !== 200 || !token) throw new Error(`login answered ${login.status}`);
  const set = await postJson(port, '/api/auth/set-password', { newPassword: 'Ten-Times-The-Load-2026' }, token);
  if (set.status !== 200) throw new Error(`set-password answered ${set.status}`);
  return token;
}

async function mailUsers(count: number): Promise<Array<{ user: string; pass: string }>> {
  const users = Array.from({ length: count }, (_, i) => ({ user: `tenx-${String(i + 1).padStart(3, '0')}@example.test`, pass: `tenx-pw-${i + 1}` }));
  const env = { ...process.env, JMAP_HTTP_PORT: new URL(SESSION_URL).port };
  for (let i = 0; i < users.length; i += 4) {
    await Promise.all(users.slice(i, i + 4).map((u) => promisify(execFile)('bash', [path.join(repo, 'scripts/jmap/add-user.sh'), u.user, u.pass], { env })));
  }
  return users;
}

interface RunResult {
  shape: string;
  reqPerSec: number;
  /** The slowest replica's read p50 and p99 (ms). */
  p50: number;
  p99: number;
  /** Each replica's reads: the one killed and restarted shows its own figures, not everyone's. */
  replicas: Array<{ requests: number; p50: number; p99: number; max: number; errors: number; timeouts: number }>;
  statuses: Record<string, number>;
  uploads: { acknowledged: number; verified: number; lost: number; p50: number; refused: Record<string, number> };
  streams: { opened: number; events: number; refused: number };
  sync: {
    accounts: number;
    syncedAfterFaults: number;
    /** Turns with two successful runs (the fault), and turns attempted more than once (a failed attempt retried). */
    doubleTurns: number;
    retriedTurns: number;
    maxTurnSeconds: number;
    allSyncedAfterSeconds: number;
    unsynced: Array<Record<string, unknown>>;
    faultsEndedAt: string;
  };
  faults: string[];
  loadAverage: string;
}

async function runShape(shape: Shape): Promise<RunResult> {
  const tmp = path.join('/tmp', `crm-10x-${shape.name}-${process.pid}`);
  fs.mkdirSync(tmp, { recursive: true, mode: 0o755 });
  fs.chmodSync(tmp, 0o755);
  // On loopback TCP: PgBouncer sits in front of it.
  const embedded = new EmbeddedPostgres(path.join(tmp, 'pg'), undefined, undefined, 'loopback');
  const pgHandle = await embedded.start();
  const bouncer = await startPgBouncer(pgHandle.url, 'session', ['default_pool_size = 80', 'max_client_conn = 400']);
  const s3 = await freshBucket('crm-10x');
  const key = crypto.randomBytes(32).toString('hex');
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    DATABASE_URL: bouncer.url,
    DATABASE_POOL_MAX: '8',
    CRM_DATA_DIR: path.join(tmp, 'data'),
    JMAP_SESSION_URL: SESSION_URL,
    JWT_ACCESS_SECRET: `${key}a`,
    JWT_REFRESH_SECRET: `${key}r`,
    CRM_ENCRYPTION_KEY: key,
    BCRYPT_ROUNDS: '4',
    SYNC_INTERVAL: '15s',
    EVENTS_MAX_STREAMS_PER_USER: '100',
    TIMESHEET_UPLOADS_PER_HOUR: '100000',
    TIMESHEET_QUOTA_FILES: '1000000',
    TIMESHEET_QUOTA_MB: '10000000',
    EXPENSIVE_REQUESTS_PER_USER: '1000',
    CRM_STORAGE: 's3',
    ...s3,
  };
  const ctx = await createAppContext({
    config: AppConfig.fromEnv({ ...env, DATABASE_URL: pgHandle.url, DATABASE_OWNER_URL: pgHandle.ownerUrl }),
    logger: createLogger('error', { silent: true }),
    migrate: true,
  });
  const procs: Proc[] = [];
  const faults: string[] = [];
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    // People and mailboxes.
    const username = `tenx-${crypto.randomBytes(3).toString('hex')}`;
    const { temporaryPassword } = await ctx.services.users.create({ username, role: 'member' }, { actor: 'bench' });
    const accounts: string[] = [];
    for (const u of await mailUsers(shape.accounts)) {
      const owner = (await ctx.services.users.create({ username: `tenx-${crypto.randomBytes(4).toString('hex')}`, role: 'member' }, { actor: 'bench' })).user;
      accounts.push((await ctx.services.emailAccounts.add(owner.id, { email: u.user, emailPassword: u.pass }, { actor: 'bench' }, { requestSync: false })).id);
    }
    const basePort = 19100 + (shape.apis > 1 ? 20 : 0);
    for (let i = 0; i < shape.apis; i++) procs.push(await startServe(`api${i}`, ['--no-sync'], env, basePort + i));
    for (let i = 0; i < shape.workers; i++) procs.push(await startServe(`worker${i}`, ['--no-api'], env, basePort + 10 + i));
    const apis = () => procs.filter((p) => p.name.startsWith('api'));
    // Onboarding over HTTP, as a person: the temporary password, then one of their own (same session).
    const accessToken = await logIn(apis()[0].port, username, temporaryPassword);

    // Live streams on every replica.
    const streamCounter = { events: 0, errors: 0 };
    const streams: http.ClientRequest[] = [];
    for (const api of apis()) for (let i = 0; i < shape.streamsPerApi; i++) streams.push(openStream(api.port, accessToken, streamCounter));

    // Acknowledged writes: uploads, round robin over the replicas, the whole run long.
    const acknowledged: Array<{ id: string; sha: string }> = [];
    const uploadLatencies: number[] = [];
    const refused: Record<string, number> = {};
    let writing = true;
    const writer = (async () => {
      for (let n = 0; writing; n++) {
        const api = apis()[n % apis().length];
        const content = pdfFixture(30_000 + (n % 1000));
        const started = Date.now();
        const res = await upload(api.port, accessToken, content, 1 + (n % 12));
        if (res.status === 201 && res.id) {
          acknowledged.push({ id: res.id, sha: crypto.createHash('sha256').update(content).digest('hex') });
          uploadLatencies.push(Date.now() - started);
        } else {
          refused[res.status] = (refused[res.status] ?? 0) + 1;
          await sleep(200);
        }
      }
    })();

    // Faults, scheduled within the load window.
    const faultRun = (async () => {
      if (!shape.faults) return;
      await sleep(SECONDS * 200);
      const victim = apis()[0];
      await stopProc(victim, 'SIGKILL');
      faults.push(`t+${(SECONDS * 0.2).toFixed(0)}s: ${victim.name} killed (SIGKILL)`);
      await sleep(3000);
      procs[procs.indexOf(victim)] = await startServe(victim.name, ['--no-sync'], env, victim.port);
      faults.push(`${victim.name} restarted`);
      await sleep(SECONDS * 150);
      const worker = procs.find((p) => p.name === 'worker0')!;
      await stopProc(worker, 'SIGKILL');
      faults.push(`${worker.name} killed (SIGKILL)`);
      await sleep(3000);
      procs[procs.indexOf(worker)] = await startServe(worker.name, ['--no-api'], env, worker.port);
      faults.push(`${worker.name} restarted`);
      await sleep(SECONDS * 150);
      const pid = Number(fs.readFileSync(path.join(tmp, 'pg', 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGKILL');
      faults.push(`PostgreSQL postmaster ${pid} killed (SIGKILL)`);
      await sleep(2000);
      await embedded.start({ port: pgHandle.port });
      faults.push(`PostgreSQL started again on port ${pgHandle.port}`);
    })();

    // Reads: autocannon against every replica at once.
    const cannons = apis().map((api) =>
      autocannon({
        url: `http://127.0.0.1:${api.port}/api/timesheets/my?limit=10`,
        headers: { Authorization: `Bearer ${accessToken}` },
        connections: shape.connections,
        duration: SECONDS,
      }),
    );
    const results = await Promise.all(cannons);
    await faultRun;
    writing = false;
    await writer;
    const faultsEnded = new Date();

    // Every account synced after the faults: a successful run that started after them. The window is the
    // sync's crash recovery: an account whose run died with the killed worker, or could not record its end
    // while PostgreSQL was down, stays leased until the lease runs out (SyncService, 120 s), then waits for
    // a tick. The worker is killed about 40 s and PostgreSQL about 30 s before the load ends, so those
    // leases run out 80-90 s after it: the window before (90 s) ended just then, and some runs counted
    // a few such accounts as never synced.
    const interval = 15;
    const syncLeaseSeconds = 120;
    const deadline = Date.now() + (syncLeaseSeconds + interval * 2 + 30) * 1000;
    let synced = 0;
    // When the last account was seen synced, in seconds after the faults (the window's own measure).
    let allSyncedAfterSeconds = 0;
    while (Date.now() < deadline) {
      const [row] = await ctx.db.sequelize.query<{ n: string }>('SELECT count(*) AS n FROM mail_sync_states WHERE email_account_id = ANY($ids) AND last_success_at > $since', {
        bind: { ids: accounts, since: faultsEnded },
        type: QueryTypes.SELECT,
      });
      synced = Number(row.n);
      allSyncedAfterSeconds = Math.round((Date.now() - faultsEnded.getTime()) / 1000);
      if (synced === accounts.length) break;
      await sleep(2000);
    }
    // The accounts that were not: their state says why (an error and its backoff, a lock still held).
    const unsynced = await ctx.db.sequelize.query<Record<string, unknown>>(
      `SELECT status, consecutive_failures AS failures, left(last_error, 160) AS "lastError", last_attempt_at AS "lastAttemptAt",
              next_attempt_at AS "nextAttemptAt", next_sync_at AS "nextSyncAt", locked_by AS "lockedBy", locked_until AS "lockedUntil"
         FROM mail_sync_states WHERE email_account_id = ANY($ids) AND (last_success_at IS NULL OR last_success_at <= $since)`,
      { bind: { ids: accounts, since: faultsEnded }, type: QueryTypes.SELECT },
    );
    const turns = procs
      .filter((p) => p.name.startsWith('worker'))
      .flatMap((p) =>
        p
          .output()
          .split('\n')
          .filter((l) => l.startsWith('{') && l.includes('"mail sync run"'))
          .map((l) => JSON.parse(l) as { accountId: string; dueAt?: string; durationMs?: number; outcome?: string }),
      );
    // A turn is done by its successful run: two of them for one turn is the fault. A failed attempt (the
    // database gone under it) and the run that took the turn over afterwards are a retry, counted apart.
    const succeeded = new Set<string>();
    const attempted = new Set<string>();
    let doubleTurns = 0;
    let retriedTurns = 0;
    for (const t of turns) {
      if (!t.dueAt) continue;
      const k = `${t.accountId}@${t.dueAt}`;
      if (attempted.has(k)) retriedTurns++;
      attempted.add(k);
      if (t.outcome !== 'ok') continue;
      if (succeeded.has(k)) doubleTurns++;
      succeeded.add(k);
    }
    const [age] = await ctx.db.sequelize.query<{ s: number }>(
      'SELECT coalesce(max(extract(epoch FROM now() - last_success_at)), 0) AS s FROM mail_sync_states WHERE email_account_id = ANY($ids)',
      {
        bind: { ids: accounts },
        type: QueryTypes.SELECT,
      },
    );

    // Nothing acknowledged lost: every upload downloads whole, from another replica than most wrote to.
    let verified = 0;
    for (const [i, a] of acknowledged.entries()) {
      const api = apis()[(i + 1) % apis().length];
      const res = await download(api.port, accessToken, a.id);
      if (res.status === 200 && crypto.createHash('sha256').update(res.bytes).digest('hex') === a.sha) verified++;
    }
    for (const s of streams) s.destroy();

    const statuses: Record<string, number> = {};
    for (const r of results) {
      for (const [code, stat] of Object.entries((r as unknown as { statusCodeStats: Record<string, { count: number }> }).statusCodeStats ?? {})) {
        statuses[code] = (statuses[code] ?? 0) + stat.count;
      }
      if (r.errors > 0) statuses.socketErrors = (statuses.socketErrors ?? 0) + r.errors;
    }
    return {
      shape: shape.name,
      reqPerSec: results.reduce((n, r) => n + r.requests.average, 0),
      p50: Math.max(...results.map((r) => r.latency.p50)),
      p99: Math.max(...results.map((r) => r.latency.p99)),
      replicas: results.map((r) => ({ requests: r.requests.total, p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max, errors: r.errors, timeouts: r.timeouts })),
      statuses,
      uploads: { acknowledged: acknowledged.length, verified, lost: acknowledged.length - verified, p50: percentile(uploadLatencies, 50), refused },
      streams: { opened: streams.length, events: streamCounter.events, refused: streamCounter.errors },
      sync: {
        accounts: accounts.length,
        syncedAfterFaults: synced,
        doubleTurns,
        retriedTurns,
        maxTurnSeconds: Math.round(Number(age.s)),
        allSyncedAfterSeconds,
        unsynced,
        faultsEndedAt: faultsEnded.toISOString(),
      },
      faults,
      loadAverage: load(),
    };
  } finally {
    for (const p of procs) await stopProc(p).catch(() => undefined);
    await ctx.close().catch(() => undefined);
    await bouncer.close().catch(() => undefined);
    await embedded.stop().catch(() => undefined);
    for (const c of cleanups) await c().catch(() => undefined);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Cyrus is shared by every run on the machine (scripts/jmap, lease-counted): this script holds a lease while it runs. */
function leaseCyrus(): () => void {
  const env = { ...process.env, JMAP_LEASE: String(process.pid) };
  execFileSync('bash', [path.join(repo, 'scripts/jmap/start.sh')], { env, stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000 });
  return () => execFileSync('bash', [path.join(repo, 'scripts/jmap/stop.sh'), '--release', String(process.pid)], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 60_000 });
}

async function main(): Promise<void> {
  const releaseCyrus = leaseCyrus();
  try {
    await measure();
  } finally {
    releaseCyrus();
  }
}

async function measure(): Promise<void> {
  console.log(`scale-10x: ${SECONDS} s of load per run; load average at start ${load()} on ${os.cpus().length} CPUs (a shared machine)`);
  const one = await runShape({ name: '1x', apis: 1, workers: 1, accounts: ACCOUNTS_1X, streamsPerApi: 2, connections: 2, faults: false });
  console.log(JSON.stringify(one, null, 2));
  const ten = await runShape({ name: '10x', apis: 3, workers: 2, accounts: ACCOUNTS_1X * 10, streamsPerApi: 7, connections: 7, faults: true });
  console.log(JSON.stringify(ten, null, 2));
  const ratio = (a: number, b: number) => (b === 0 ? 'n/a' : `×${(a / b).toFixed(2)}`);
  console.log('\n10× against 1× (same script, same machine, minutes apart):');
  console.log(`  read throughput ${ratio(ten.reqPerSec, one.reqPerSec)}  read p50 ${ratio(ten.p50, one.p50)}  read p99 ${ratio(ten.p99, one.p99)}`);
  console.log(`  uploads acknowledged ${ratio(ten.uploads.acknowledged, one.uploads.acknowledged)}  upload p50 ${ratio(ten.uploads.p50, one.uploads.p50)}`);
  console.log(`  live events received ${ratio(ten.streams.events, one.streams.events)}  oldest sync at the end ${ratio(ten.sync.maxTurnSeconds, one.sync.maxTurnSeconds)}`);
  const problems: string[] = [];
  for (const r of [one, ten]) {
    if (r.statuses['500']) problems.push(`${r.shape}: ${r.statuses['500']} responses 500`);
    if (r.uploads.lost > 0) problems.push(`${r.shape}: ${r.uploads.lost} acknowledged uploads lost`);
    if (r.sync.syncedAfterFaults !== r.sync.accounts) problems.push(`${r.shape}: ${r.sync.accounts - r.sync.syncedAfterFaults} accounts not synced after the faults`);
    if (r.sync.doubleTurns > 0) problems.push(`${r.shape}: ${r.sync.doubleTurns} turns run twice`);
  }
  console.log(problems.length === 0 ? '\nOK: no 500, nothing acknowledged lost, every account synced, no turn run twice' : `\nPROBLEMS:\n  ${problems.join('\n  ')}`);
  console.log(`load average at end: ${load()}`);
  if (problems.length > 0) process.exitCode = 1;
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
