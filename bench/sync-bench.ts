/**
 * Mail sync benchmark: `node --import=tsx/esm bench/sync-bench.ts` against the project's Cyrus (scripts/jmap/start.sh).
 * Env: BENCH_JMAP_SESSION_URL (http://127.0.0.1:18080/.well-known/jmap), BENCH_MESSAGES (20000),
 * BENCH_SMALL_MESSAGES (1000), BENCH_ROUNDS (5), BENCH_INCREMENTAL_RUNS (5), BENCH_WARMUP (1),
 * BENCH_COMPARE_DOCUMENTS (0; 1: each round's second sync writes release 0.5's search documents,
 * bench/release-05-documents.ts, in place of the one-page-ahead sync: what the Slovak documents cost a first sync).
 *
 * One machine, one run, a throwaway embedded PostgreSQL in /tmp, fresh mail users seeded over IMAP.
 *   1. Full sync of the big mailbox vs a bare script making the same JMAP requests (mailboxes +
 *      state, then Email/query + Email/get pages with the same properties) and nothing else.
 *      Each side runs in its own child process, so each RSS figure is that work's alone. The sync
 *      fetches pages ahead while it writes (src/sync/page-queue.ts): the default depth of 2 and, for
 *      comparison, 1 (fetch only the next page while writing one). Target: <= 1.25x the bare fetch.
 *   2. Incremental sync after one new message: JMAP requests and time, at the big and small mailbox.
 *   3. Peak RSS (getrusage maxrss) of the child process that ran the full sync.
 * Each sync's account is new to PostgreSQL's statistics (ANALYZE runs before it, as autovacuum would
 * have). Bare fetch and the syncs alternate round by round, so a neighbour's load hits them alike; the
 * report gives the median of the per-round ratios and the ratio of the best times, and the load.
 * Every timed sync is the same experiment, the first sync of a 20,000-message mailbox into the same
 * database: the accounts of the sync before are removed first (through the service, then VACUUM,
 * untimed). BENCH_KEEP_DATA=1 keeps them instead, so each sync writes into a database that holds the
 * emails of every sync before it (21,000 more each time): that measures how the sync's cost grows
 * with the installation, a different question from the target's. Each round's line says how many
 * emails the database held before each of its two syncs.
 *
 * Warm-up (BENCH_WARMUP=1, the default): before its timed work each child does the same kind of work
 * on the small mailbox (the bare child fetches it, the sync child syncs a fresh account of it), as the
 * long-running service has. BENCH_WARMUP=0 times the first work of a fresh process (cold code).
 * CPU time: each child also reports the CPU its timed part cost in its own process, in PostgreSQL and
 * in Cyrus (summed over every process named postgres or httpd in /proc, so another PostgreSQL busy on
 * the machine at the same time counts too): on a 2-core machine all three share the cores, so the
 * sync cannot be faster than its CPU total / 2, whatever it overlaps.
 */
import { execFile, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createAppContext, type AppContext } from '../src/app/context.js';
import { AppConfig } from '../src/config/config.js';
import { EmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { JmapClient } from '../src/jmap/index.js';
import { createLogger } from '../src/logging/logger.js';
import { Sql } from '../src/db/sql.js';
import { sequelizeTransactions } from '../src/db/transactions.js';
import { fetchMailboxesAndState, fetchPage } from '../src/sync/jmap-sync-calls.js';
import { MailStoreRepository } from '../src/sync/mail-store-repository.js';
import { SyncRepository } from '../src/sync/sync-repository.js';
import { SyncService } from '../src/sync/sync-service.js';
import { appendMessage, buildMessage } from '../test/support/imap.js';
import pgClient from 'pg';
import { maintain } from './bench-database.js';
import { currentDocuments, useDocuments } from './release-05-documents.js';

const SESSION_URL = process.env.BENCH_JMAP_SESSION_URL ?? 'http://127.0.0.1:18080/.well-known/jmap';
const BIG = Number(process.env.BENCH_MESSAGES ?? 20_000);
const SMALL = Number(process.env.BENCH_SMALL_MESSAGES ?? 1_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const INCREMENTAL_RUNS = Number(process.env.BENCH_INCREMENTAL_RUNS ?? 5);
const WARMUP = process.env.BENCH_WARMUP !== '0';
const KEEP_DATA = process.env.BENCH_KEEP_DATA === '1';
/** Each round's second sync writes release 0.5's search documents instead of syncing one page ahead (issue 49's write cost). */
const COMPARE_DOCUMENTS = process.env.BENCH_COMPARE_DOCUMENTS === '1';
/** The sync service's default page size; the bare script uses the same. */
const BATCH = 500;
const thisFile = fileURLToPath(import.meta.url);
const repo = path.resolve(path.dirname(thisFile), '..');

interface ChildReport {
  ms: number;
  maxRssMb: number;
  rssBeforeMb: number;
  /** CPU milliseconds of the timed part: this process, the PostgreSQL server, the Cyrus server. */
  cpu: CpuSplit;
  detail: Record<string, unknown>;
}

interface CpuSplit {
  node: number;
  postgres: number;
  cyrus: number;
}

/** CPU milliseconds used so far by processes of each server (all of their processes, from /proc). */
function serverCpuMs(): { postgres: number; cyrus: number } {
  const total = { postgres: 0, cyrus: 0 };
  const tick = 1000 / 100; // USER_HZ is 100 on Linux
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = (Number(fields[11]) + Number(fields[12])) * tick;
      if (name === 'postgres') total.postgres += ms;
      else if (name === 'httpd') total.cyrus += ms; // Cyrus's JMAP service process
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

/** Starts a CPU measurement; the returned function ends it. */
function cpuMeter(): () => CpuSplit {
  const own = process.cpuUsage();
  const servers = serverCpuMs();
  return () => {
    const used = process.cpuUsage(own);
    const now = serverCpuMs();
    return { node: Math.round((used.user + used.system) / 1000), postgres: now.postgres - servers.postgres, cyrus: now.cyrus - servers.cyrus };
  };
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function appEnv(databaseUrl: string, dataDir: string, key: string): Record<string, string> {
  return {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    CRM_DATA_DIR: dataDir,
    JMAP_SESSION_URL: SESSION_URL,
    LOG_LEVEL: 'error',
    JWT_ACCESS_SECRET: `${key}a`,
    JWT_REFRESH_SECRET: `${key}r`,
    CRM_ENCRYPTION_KEY: key,
  };
}

// ------------------------------------------------------------------------------- child modes

/** Child: the bare fetch. Same requests as the full sync, results parsed and dropped. */
async function bareChild(user: string, pass: string, warmUser?: string, warmPass?: string): Promise<ChildReport> {
  if (warmUser && warmPass) await bareFetch(warmUser, warmPass);
  const rssBefore = process.memoryUsage().rss;
  const meter = cpuMeter();
  const started = performance.now();
  const { fetched, requests } = await bareFetch(user, pass);
  const ms = performance.now() - started;
  return { ms, cpu: meter(), rssBeforeMb: mb(rssBefore), maxRssMb: mb(process.resourceUsage().maxRSS * 1024), detail: { fetched, requests } };
}

async function bareFetch(user: string, pass: string): Promise<{ fetched: number; requests: number }> {
  const client = new JmapClient({ sessionUrl: SESSION_URL, credentials: { kind: 'basic', username: user, password: pass } });
  const accountId = await client.mailAccountId();
  const { roles } = await fetchMailboxesAndState(client, accountId, undefined);
  let anchor: string | null = null;
  let fetched = 0;
  for (;;) {
    const page = await fetchPage({ client, accountId, signal: undefined }, roles, anchor, BATCH);
    fetched += page.emails.length;
    if (!page.more || page.ids.length === 0) break;
    anchor = page.ids[page.ids.length - 1]!;
  }
  return { fetched, requests: client.requestCount };
}

/** Child: one full sync of a freshly linked account through the real service, `prefetch` pages ahead. */
async function syncChild(accountId: string, prefetch: number, warmAccountId?: string): Promise<ChildReport> {
  const config = AppConfig.fromEnv(process.env);
  const ctx = await createAppContext({ config, logger: createLogger('error', { silent: true }), migrate: false });
  await ctx.db.sequelize.query('SELECT 1');
  const sql = new Sql(ctx.db.sequelize);
  // The service as services.ts builds it, with the prefetch depth under test.
  const sync = new SyncService(
    {
      repository: new SyncRepository(sql),
      mailStore: new MailStoreRepository(sql),
      transactions: sequelizeTransactions(ctx.db.sequelize),
      logger: ctx.logger,
      clientFor: (account) => ctx.services.emailAccounts.clientFor(account),
      readState: ctx.services.readStatePusher,
    },
    { prefetchPages: prefetch },
  );
  if (warmAccountId && (await sync.syncAccount(warmAccountId)).outcome !== 'ok') throw new Error('warm-up sync failed');
  const rssBefore = process.memoryUsage().rss;
  const meter = cpuMeter();
  const started = performance.now();
  const result = await sync.syncAccount(accountId);
  const ms = performance.now() - started;
  const report = { ms, cpu: meter(), rssBeforeMb: mb(rssBefore), maxRssMb: mb(process.resourceUsage().maxRSS * 1024), detail: { ...result } };
  await ctx.close();
  return report;
}

const cpuText = (c: CpuSplit) => `node ${c.node} + postgres ${c.postgres} + cyrus ${c.cyrus}`;

function runChild(args: string[], env: Record<string, string>): Promise<ChildReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', thisFile, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
      cwd: repo,
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`child ${args[0]} exited ${code}`));
      resolve(JSON.parse(out.trim().split('\n').pop()!) as ChildReport);
    });
  });
}

// ------------------------------------------------------------------------------------ parent

async function mailUser(count: number): Promise<{ user: string; pass: string }> {
  const user = `bench-${crypto.randomBytes(4).toString('hex')}@example.test`;
  const pass = `pw-${crypto.randomBytes(8).toString('hex')}`;
  const env = { ...process.env, JMAP_HTTP_PORT: new URL(SESSION_URL).port };
  await promisify(execFile)('bash', [path.join(repo, 'scripts/jmap/add-user.sh'), user, pass], { env });
  const started = Date.now();
  await promisify(execFile)('bash', [path.join(repo, 'scripts/jmap/seed.sh'), user, pass, String(count)], { env, maxBuffer: 1 << 20 });
  console.log(`seeded ${count} messages into ${user} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { user, pass };
}

/**
 * Cyrus's squatter indexes freshly seeded mail in the background for a while (Xapian); measuring
 * while it runs would mostly measure it. Waits until its CPU time stops growing (at most 3 minutes).
 */
async function waitForIndexer(): Promise<void> {
  const cpuTicks = () => {
    let total = 0;
    for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        if (!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('squatter')) continue;
        const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
        total += Number(fields[11]) + Number(fields[12]);
      } catch {
        // the process ended meanwhile
      }
    }
    return total;
  };
  const deadline = Date.now() + 180_000;
  let last = cpuTicks();
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 2000));
    const now = cpuTicks();
    if (now - last < 10) return;
    last = now;
  }
}

async function linkAccount(ctx: AppContext, mail: { user: string; pass: string }): Promise<string> {
  const { user } = await ctx.services.users.create({ username: `bench${crypto.randomBytes(4).toString('hex')}`, role: 'member' }, { actor: 'bench' });
  const account = await ctx.services.emailAccounts.add(user.id, { email: mail.user, emailPassword: mail.pass }, { actor: 'bench' }, { requestSync: false });
  return account.id;
}

/** Removes accounts (their emails go with them) and leaves the tables as autovacuum would. */
async function removeAccounts(ctx: AppContext, accountIds: string[]): Promise<void> {
  for (const id of accountIds) await ctx.services.emailAccountAdmin.remove(id, { actor: 'bench' });
  await maintain(ctx, 'VACUUM (ANALYZE) emails, email_contacts, contacts');
}

async function emailCount(ctx: AppContext): Promise<number> {
  const [rows] = await ctx.db.sequelize.query('SELECT count(*)::int AS n FROM emails');
  return (rows as Array<{ n: number }>)[0].n;
}

async function incremental(ctx: AppContext, accountId: string, mail: { user: string; pass: string }) {
  const runs: Array<{ ms: number; requests: number; stored: number }> = [];
  const imapPort = Number(process.env.JMAP_IMAP_PORT ?? 11143);
  for (let i = 0; i < INCREMENTAL_RUNS; i++) {
    const raw = buildMessage({ from: { name: 'New Sender', email: 'new.sender@bench.example' }, to: mail.user, subject: `New ${i}`, body: `fresh ${i}` });
    await appendMessage({ user: mail.user, pass: mail.pass, mailbox: 'INBOX', raw, port: imapPort });
    const started = performance.now();
    const result = await ctx.services.mailSync.syncAccount(accountId);
    runs.push({ ms: performance.now() - started, requests: result.requests, stored: result.stored });
    if (result.outcome !== 'ok' || result.stored !== 1) throw new Error(`incremental run failed: ${JSON.stringify(result)}`);
  }
  return { medianMs: median(runs.map((r) => r.ms)), medianRequests: median(runs.map((r) => r.requests)), maxRequests: Math.max(...runs.map((r) => r.requests)), runs };
}

async function main(): Promise<void> {
  const tmpRoot = path.join('/tmp', `crm-sync-bench-${process.pid}-${Date.now()}`);
  fs.mkdirSync(tmpRoot, { recursive: true, mode: 0o755 });
  fs.chmodSync(tmpRoot, 0o755);
  const pg = new EmbeddedPostgres(path.join(tmpRoot, 'pg'));
  const { url, ownerUrl } = await pg.start();
  // Migrations run as the schema's owner (ADR 0171).
  const env = { ...appEnv(url, path.join(tmpRoot, 'data'), crypto.randomBytes(32).toString('hex')), DATABASE_OWNER_URL: ownerUrl };
  const ctx = await createAppContext({ config: AppConfig.fromEnv(env), logger: createLogger('error', { silent: true }) });
  try {
    const [big, small] = await Promise.all([mailUser(BIG), mailUser(SMALL)]);
    await waitForIndexer();
    const bare: ChildReport[] = [];
    const sync: ChildReport[] = [];
    const syncOneAhead: ChildReport[] = [];
    let lastBigAccount = '';
    let previous: string[] = [];
    const storedEmails: number[] = [];
    const fullSync = async (prefetch: number) => {
      if (!KEEP_DATA && previous.length > 0) await removeAccounts(ctx, previous);
      storedEmails.push(await emailCount(ctx));
      lastBigAccount = await linkAccount(ctx, big);
      const warm = WARMUP ? [await linkAccount(ctx, small)] : [];
      previous = [lastBigAccount, ...warm];
      // As in an installation that autovacuum has analysed: the new account is unknown to the
      // statistics (every earlier account is a most-common value), the state that made the
      // Message-ID check scan the account once per email before migration 0014.
      await maintain(ctx, 'ANALYZE emails');
      const s = await runChild(['sync', lastBigAccount, String(prefetch), ...warm], env);
      if (s.detail.outcome !== 'ok' || s.detail.stored !== BIG) throw new Error(`full sync incomplete: ${JSON.stringify(s.detail)}`);
      return s;
    };
    const owner = COMPARE_DOCUMENTS ? new pgClient.Client({ connectionString: ownerUrl }) : undefined;
    await owner?.connect();
    const current = owner ? await currentDocuments(owner) : '';
    for (let round = 1; round <= ROUNDS; round++) {
      const b = await runChild(['bare', big.user, big.pass, ...(WARMUP ? [small.user, small.pass] : [])], env);
      bare.push(b);
      if (owner) await useDocuments(owner, '0.5', current);
      const one = await fullSync(owner ? 2 : 1);
      if (owner) await useDocuments(owner, 'now', current);
      syncOneAhead.push(one);
      const s = await fullSync(2);
      sync.push(s);
      const load = os.loadavg()[0].toFixed(1);
      const second = COMPARE_DOCUMENTS ? "with release 0.5's documents" : 'one page ahead';
      console.log(
        `round ${round}: bare ${(b.ms / 1000).toFixed(2)} s, full sync ${(s.ms / 1000).toFixed(2)} s (ratio ${(s.ms / b.ms).toFixed(2)}), ` +
          `${second} ${(one.ms / 1000).toFixed(2)} s (ratio ${(one.ms / b.ms).toFixed(2)}${COMPARE_DOCUMENTS ? `; now / 0.5 ${(s.ms / one.ms).toFixed(2)}` : ''}), sync peak RSS ${s.maxRssMb} MB, load ${load}, ` +
          `emails stored before the syncs ${storedEmails.slice(-2).join(' / ')}; ` +
          `CPU ms bare ${cpuText(b.cpu)}, sync ${cpuText(s.cpu)}`,
      );
    }
    const bigIncremental = await incremental(ctx, lastBigAccount, big);
    const smallAccount = await linkAccount(ctx, small);
    const smallFull = await ctx.services.mailSync.syncAccount(smallAccount);
    if (smallFull.outcome !== 'ok') throw new Error('small full sync failed');
    const smallIncremental = await incremental(ctx, smallAccount, small);

    const bareMs = median(bare.map((r) => r.ms));
    const medianCpu = (runs: ChildReport[]) => {
      const split = { node: median(runs.map((r) => r.cpu.node)), postgres: median(runs.map((r) => r.cpu.postgres)), cyrus: median(runs.map((r) => r.cpu.cyrus)) };
      return { ...split, totalS: +((split.node + split.postgres + split.cyrus) / 1000).toFixed(2) };
    };
    const syncMs = median(sync.map((r) => r.ms));
    const figures = {
      messages: BIG,
      batch: BATCH,
      fullSync: {
        bareMedianS: +(bareMs / 1000).toFixed(2),
        syncMedianS: +(syncMs / 1000).toFixed(2),
        ratioOfMedians: +(syncMs / bareMs).toFixed(2),
        medianRoundRatio: +median(sync.map((r, i) => r.ms / bare[i].ms)).toFixed(2),
        ratioOfBest: +(Math.min(...sync.map((r) => r.ms)) / Math.min(...bare.map((r) => r.ms))).toFixed(2),
        target: '<= 1.25',
        [COMPARE_DOCUMENTS ? 'release05Documents' : 'onePageAhead']: {
          syncMedianS: +(median(syncOneAhead.map((r) => r.ms)) / 1000).toFixed(2),
          medianRoundRatio: +median(syncOneAhead.map((r, i) => r.ms / bare[i].ms)).toFixed(2),
          ratioOfBest: +(Math.min(...syncOneAhead.map((r) => r.ms)) / Math.min(...bare.map((r) => r.ms))).toFixed(2),
          ...(COMPARE_DOCUMENTS ? { nowOver05MedianRoundRatio: +median(sync.map((r, i) => r.ms / syncOneAhead[i].ms)).toFixed(2) } : {}),
        },
        warmProcesses: WARMUP,
        databaseKeptBetweenSyncs: KEEP_DATA,
        emailsStoredBeforeEachSync: { first: storedEmails[0], last: storedEmails.at(-1) },
        // CPU of the timed part (median per round): on 2 cores the wall time is at least total / 2.
        cpuMs: { bare: medianCpu(bare), sync: medianCpu(sync), cores: os.cpus().length },
        syncRequests: sync.at(-1)!.detail.requests,
        bareRequests: bare.at(-1)!.detail.requests,
      },
      incremental: {
        [`at${BIG}`]: { medianMs: +bigIncremental.medianMs.toFixed(1), medianRequests: bigIncremental.medianRequests, maxRequests: bigIncremental.maxRequests },
        [`at${SMALL}`]: { medianMs: +smallIncremental.medianMs.toFixed(1), medianRequests: smallIncremental.medianRequests, maxRequests: smallIncremental.maxRequests },
        // The first incremental run of this process fetches the session too; later ones are one request.
        target: '1 request once the session is known, < 100 ms',
      },
      peakRssMb: {
        fullSyncProcess: Math.max(...sync.map((r) => r.maxRssMb)),
        fullSyncProcessOnePageAhead: Math.max(...syncOneAhead.map((r) => r.maxRssMb)),
        fullSyncProcessBeforeSync: Math.max(...sync.map((r) => r.rssBeforeMb)),
        bareProcess: Math.max(...bare.map((r) => r.maxRssMb)),
        target: '< 250',
      },
    };
    console.log(JSON.stringify(figures, null, 2));
    await owner?.end();
  } finally {
    await ctx.close();
    await pg.stop().catch(() => {});
    fs.rmSync(tmpRoot, { recursive: true, force: true });
  }
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'bare') {
  bareChild(args[0], args[1], args[2], args[3]).then(
    (r) => console.log(JSON.stringify(r)),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
} else if (mode === 'sync') {
  syncChild(args[0], Number(args[1] ?? 2), args[2]).then(
    (r) => {
      console.log(JSON.stringify(r));
      process.exit(0);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
} else {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
