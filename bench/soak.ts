/**
 * Soak: SOAK_SECONDS (600) of mixed traffic against a `crm-admin serve` child (API and the cron mail
 * sync, one process, as in production) with the sync running against the project's Cyrus and new
 * mail arriving the whole time. Reports requests served, errors (target 0), latency percentiles, and
 * the server's RSS and V8 heap, first minute against last minute of the measured window (target:
 * RSS growth under 10 %).
 *
 *   node --import=tsx/esm bench/soak.ts                      # needs `npm run build` (runs bin/crm-admin) and Cyrus
 *
 * Env: SOAK_SECONDS (600), SOAK_WARMUP_SECONDS (60), SOAK_WORKERS (8), SOAK_USERS (4),
 * SOAK_MESSAGES (200 per mailbox before the start), SOAK_MAIL_EVERY_MS (4000: one new message),
 * SOAK_JMAP_SESSION_URL (http://127.0.0.1:18080/.well-known/jmap), SOAK_BCRYPT_ROUNDS (10),
 * SOAK_SETTLE_SECONDS (65: after the traffic, one more scheduled sync before the sync status is read).
 * The server gets its own embedded PostgreSQL in a temp dir (removed afterwards).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { httpTarget, type RawResponse } from '../test/hardening/support/http-target.js';
import { appendMessage, buildMessage } from '../test/support/imap.js';
import { pdfFixture } from '../test/timesheets/fixtures.js';
import { multipartBody } from '../test/timesheets/helpers.js';

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const SECONDS = num('SOAK_SECONDS', 600);
const WARMUP = num('SOAK_WARMUP_SECONDS', 60);
const WORKERS = num('SOAK_WORKERS', 8);
const USERS = num('SOAK_USERS', 4);
const MESSAGES = num('SOAK_MESSAGES', 200);
const MAIL_EVERY_MS = num('SOAK_MAIL_EVERY_MS', 4000);
const SESSION_URL = process.env.SOAK_JMAP_SESSION_URL ?? 'http://127.0.0.1:18080/.well-known/jmap';
const IMAP_PORT = Number(process.env.TEST_JMAP_IMAP_PORT ?? 11143);
const repo = fileURLToPath(new URL('../', import.meta.url));
const run = promisify(execFile);

// ------------------------------------------------------------------------------------------ server

const dir = path.join('/tmp', `crm-soak-${process.pid}-${Date.now()}`);
fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
fs.chmodSync(dir, 0o755);
const env: Record<string, string> = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '/root',
  CRM_DATA_DIR: dir,
  JMAP_SESSION_URL: SESSION_URL,
  SYNC_CRON: '* * * * *',
  BCRYPT_ROUNDS: String(num('SOAK_BCRYPT_ROUNDS', 10)),
  LOG_LEVEL: 'info',
  NODE_ENV: 'development',
  // A load test: its users upload far beyond a member's quota and upload rate.
  TIMESHEET_UPLOADS_PER_HOUR: '100000',
  TIMESHEET_QUOTA_FILES: '1000000',
  TIMESHEET_QUOTA_MB: '10000000',
};

function crmAdmin(args: string[]): Promise<string> {
  return run(path.join(repo, 'bin/crm-admin'), args, { env, timeout: 120_000 }).then((r) => r.stdout);
}

const logCounts = { warn: 0, error: 0 };
const errorLines: string[] = [];
function startServer(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(path.join(repo, 'bin/crm-admin'), ['serve'], { env: { ...env, PORT: '0', HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let pending = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (line.includes('"level":"warn"')) logCounts.warn++;
        if (line.includes('"level":"error"')) {
          logCounts.error++;
          if (errorLines.length < 10) errorLines.push(line.slice(0, 600));
        }
        const url = /"url":"(http:\/\/[^"]+)"/.exec(line)?.[1];
        if (url) resolve({ child, url });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`serve exited with ${code} before starting`)));
  });
}

function rssMb(pid: number): number {
  const line = fs
    .readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Number(/(\d+)/.exec(line)![1]) / 1024;
}

// ------------------------------------------------------------------------------------------- setup

console.log(`soak: ${SECONDS} s measured after ${WARMUP} s warm-up, ${WORKERS} workers, ${USERS} users, data in ${dir}`);
const { child, url } = await startServer();
const api = httpTarget(url, { hangMs: 30_000 });
const pid = child.pid!;
console.log(`server pid ${pid} at ${url}, RSS right after start ${rssMb(pid).toFixed(1)} MB`);

interface SoakUser {
  username: string;
  password: string;
  mail: { user: string; pass: string };
}

// The soak reads whatever fields each response has; their shapes are tested elsewhere.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = (res: RawResponse) => res.json as { data?: any };
const users: SoakUser[] = [];
for (let i = 0; i < USERS; i++) {
  const username = `soak${i}.${crypto.randomBytes(3).toString('hex')}`;
  const created = JSON.parse(await crmAdmin(['users', 'create', '--username', username, '--json'])) as { temporaryPassword: string };
  const mail = { user: `soak-${crypto.randomBytes(5).toString('hex')}@example.test`, pass: `pw-${crypto.randomBytes(9).toString('base64url')}` };
  await run('bash', [path.join(repo, 'scripts/jmap/add-user.sh'), mail.user, mail.pass], { timeout: 60_000 });
  if (MESSAGES > 0) await run('bash', [path.join(repo, 'scripts/jmap/seed.sh'), mail.user, mail.pass, String(MESSAGES)], { timeout: 300_000 });
  const login = await post('/api/auth/login', { username, password: created.temporaryPassword });
  const bearer = `Bearer ${json(login).data.tokens.accessToken}`;
  const password = `Soak-Pass-${crypto.randomBytes(6).toString('hex')}`;
  expectStatus(await post('/api/auth/set-password', { newPassword: password }, bearer), 200, 'set-password');
  expectStatus(await post('/api/auth/link-email', { email: mail.user, emailPassword: mail.pass }, bearer), 200, 'link-email');
  users.push({ username, password, mail });
}
console.log(`${USERS} users with linked mailboxes of ${MESSAGES} messages each; sync every minute`);

function post(p: string, body: unknown, bearer?: string, cookie?: string) {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (bearer) headers.Authorization = bearer;
  if (cookie) headers.Cookie = cookie;
  return api.send({ method: 'POST', path: p, headers, body: JSON.stringify(body) });
}

function expectStatus(res: RawResponse, status: number, what: string): void {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.text.slice(0, 300)}`);
}

// ----------------------------------------------------------------------------------------- traffic

interface Sample {
  op: string;
  ms: number;
  ok: boolean;
}

const stats = { measuring: false, samples: [] as Sample[], warmup: 0, failures: [] as string[] };

class Worker {
  private bearer = '';
  private refreshToken = '';
  private timesheets: string[] = [];
  private emailIds: string[] = [];
  private contactIds: string[] = [];

  constructor(private readonly user: SoakUser) {}

  async login(): Promise<void> {
    const res = await this.call('login', () => post('/api/auth/login', { username: this.user.username, password: this.user.password, rememberMe: true }), 200);
    if (res?.status === 200) {
      this.bearer = `Bearer ${json(res).data.tokens.accessToken}`;
      this.refreshToken = json(res).data.tokens.refreshToken;
    }
  }

  private auth() {
    return { Authorization: this.bearer };
  }

  private get(op: string, p: string) {
    return this.call(op, () => api.send({ method: 'GET', path: p, headers: this.auth() }), 200);
  }

  /**
   * The traffic mix: a roll of 0-100 picks the first action whose bound it is under and whose
   * precondition holds (an action that needs ids seen earlier falls through to the next one).
   */
  private readonly actions: { below: number; when?: () => boolean; run: () => Promise<unknown> }[] = [
    { below: 3, run: () => this.login() },
    { below: 4, run: () => this.logoutAndLogin() },
    { below: 12, run: () => this.refresh() },
    { below: 16, run: () => this.get('me', '/api/auth/me') },
    { below: 28, run: () => this.listContacts() },
    { below: 42, run: () => this.listEmails() },
    { below: 47, when: () => this.contactIds.length > 0, run: () => this.get('contact-emails', `/api/emails?contactId=${pick(this.contactIds)}&limit=20`) },
    { below: 55, when: () => this.emailIds.length > 0, run: () => this.get('get-email', `/api/emails/${pick(this.emailIds)}`) },
    { below: 58, when: () => this.emailIds.length > 0, run: () => this.markRead(pick(this.emailIds)) },
    { below: 64, run: () => this.get('list-timesheets', '/api/timesheets/my?limit=20') },
    { below: 67, run: () => this.get('list-accounts', '/api/email-accounts') },
    { below: 76, run: () => this.upload() },
    { below: 92, when: () => this.timesheets.length > 0, run: () => this.get('download', `/api/timesheets/${pick(this.timesheets)}/download`) },
    { below: Infinity, when: () => this.timesheets.length > 10, run: () => this.deleteOldestTimesheet() },
  ];

  async step(): Promise<void> {
    const roll = Math.random() * 100;
    const action = this.actions.find((a) => roll < a.below && (a.when?.() ?? true));
    await (action ? action.run() : this.get('health', '/api/health/ready'));
  }

  private async logoutAndLogin(): Promise<void> {
    await this.call('logout', () => post('/api/auth/logout', {}, this.bearer), 200);
    await this.login();
  }

  private async refresh(): Promise<void> {
    const res = await this.call('refresh', () => post('/api/auth/refresh', undefined, undefined, `refreshToken=${this.refreshToken}`), 200);
    if (res?.status !== 200) return;
    this.bearer = `Bearer ${json(res).data.accessToken}`;
    const rotated = /refreshToken=([^;]+)/.exec(String(res.headers['set-cookie'] ?? ''))?.[1];
    if (rotated) this.refreshToken = decodeURIComponent(rotated);
  }

  private async listContacts(): Promise<void> {
    const res = await this.get('list-contacts', `/api/contacts?limit=20&sort=${Math.random() < 0.5 ? 'latest' : 'name'}`);
    if (res?.status === 200) this.contactIds = json(res).data.items.map((c: { id: string }) => c.id);
  }

  private async listEmails(): Promise<void> {
    const search = Math.random() < 0.3 ? `&search=${encodeURIComponent(['Invoice', 'demo', 'Quote', 'ticket'][Math.floor(Math.random() * 4)])}` : '';
    const res = await this.get('list-emails', `/api/emails?limit=20&page=${1 + Math.floor(Math.random() * 3)}${search}`);
    if (res?.status === 200) this.emailIds = json(res).data.items.map((e: { id: string }) => e.id);
  }

  private markRead(id: string) {
    return this.call(
      'mark-read',
      () =>
        api.send({
          method: 'PATCH',
          path: `/api/emails/${id}`,
          headers: { ...this.auth(), 'Content-Type': 'application/json' },
          body: JSON.stringify({ isRead: Math.random() < 0.5 }),
        }),
      200,
    );
  }

  private async upload(): Promise<void> {
    const { body, contentType } = multipartBody([
      { name: 'year', value: '2026' },
      { name: 'month', value: String(1 + Math.floor(Math.random() * 12)) },
      { name: 'file', filename: 'vykaz.pdf', content: UPLOAD },
    ]);
    const res = await this.call('upload', () => api.send({ method: 'POST', path: '/api/timesheets/upload', headers: { ...this.auth(), 'Content-Type': contentType }, body }), 201);
    if (res?.status === 201) this.timesheets.push(json(res).data.timesheet.id);
  }

  private deleteOldestTimesheet() {
    const id = this.timesheets.shift()!;
    return this.call('delete-timesheet', () => api.send({ method: 'DELETE', path: `/api/timesheets/${id}`, headers: this.auth() }), 200);
  }

  private async call(op: string, send: () => Promise<RawResponse>, expected: number): Promise<RawResponse | undefined> {
    const started = process.hrtime.bigint();
    let res: RawResponse | undefined;
    let failure: string | undefined;
    try {
      res = await send();
      if (res.status !== expected) failure = `${op}: ${res.status} ${res.text.slice(0, 200)}`;
    } catch (err) {
      failure = `${op}: ${(err as Error).message}`;
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (stats.measuring) {
      stats.samples.push({ op, ms, ok: !failure });
      if (failure && stats.failures.length < 20) stats.failures.push(failure);
    } else {
      stats.warmup++;
    }
    return res;
  }
}

const UPLOAD = pdfFixture(48 * 1024);
const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)];

let running = true;
const workers = Array.from({ length: WORKERS }, (_, i) => new Worker(users[i % users.length]));
await Promise.all(workers.map((w) => w.login()));
const loops = workers.map(async (w) => {
  while (running) await w.step();
});

// New mail keeps arriving, so every scheduled sync has work to do.
let delivered = 0;
const mailTimer = setInterval(() => {
  const u = pick(users);
  const raw = buildMessage({ from: { name: 'Soak Klient', email: `klient${delivered % 7}@soak.example` }, to: u.mail.user, subject: `Soak ${delivered}`, body: 'Nová objednávka' });
  delivered++;
  appendMessage({ port: IMAP_PORT, user: u.mail.user, pass: u.mail.pass, mailbox: 'INBOX', raw }).catch((err: Error) => console.log(`mail delivery failed: ${err.message}`));
}, MAIL_EVERY_MS);

await sleep(WARMUP * 1000);
stats.measuring = true;
const measuredFrom = Date.now();
console.log(`warm-up done (${stats.warmup} requests)`);

/**
 * RSS and V8 heap every 10 s. Both saw-tooth with garbage collection, so growth compares the median
 * of the first minute's samples with the median of the last minute's, not two single points.
 */
interface MemorySample {
  at: number;
  rss: number;
  heap: number;
}
const memory: MemorySample[] = [];
async function sampleMemory(): Promise<MemorySample> {
  const res = await api.send({ method: 'GET', path: '/api/metrics' });
  const heap = Number(/^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)/m.exec(res.text)?.[1] ?? NaN) / 1024 / 1024;
  const sample = { at: (Date.now() - measuredFrom) / 1000, rss: rssMb(pid), heap };
  memory.push(sample);
  return sample;
}
await sampleMemory();
let lastReport = 0;
while (Date.now() - measuredFrom < SECONDS * 1000) {
  await sleep(Math.min(10_000, SECONDS * 1000 - (Date.now() - measuredFrom)));
  const m = await sampleMemory();
  if (m.at - lastReport >= 60 || m.at >= SECONDS) {
    lastReport = m.at;
    const errors = stats.samples.filter((s) => !s.ok).length;
    console.log(
      `+${m.at.toFixed(0)} s: ${stats.samples.length} requests (${(stats.samples.length / m.at).toFixed(0)}/s), ${errors} errors, RSS ${m.rss.toFixed(1)} MB, heap used ${m.heap.toFixed(1)} MB`,
    );
  }
}
stats.measuring = false;
running = false;
clearInterval(mailTimer);
await Promise.all(loops);
const elapsed = (Date.now() - measuredFrom) / 1000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const edge = Math.min(60, elapsed / 4);
const first = memory.filter((m) => m.at <= edge);
const last = memory.filter((m) => m.at >= elapsed - edge);
const rssStart = median(first.map((m) => m.rss));
const rssEnd = median(last.map((m) => m.rss));
const heapStart = median(first.map((m) => m.heap));
const heapEnd = median(last.map((m) => m.heap));

// ------------------------------------------------------------------------------------------ report

const percentile = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const all = stats.samples.map((s) => s.ms).sort((a, b) => a - b);
const errors = stats.samples.filter((s) => !s.ok);
const byOp = new Map<string, number[]>();
for (const s of stats.samples) byOp.set(s.op, [...(byOp.get(s.op) ?? []), s.ms]);

// Give the sync a last run to catch up with the mail delivered at the end, then read its status.
await sleep(num('SOAK_SETTLE_SECONDS', 65) * 1000);
const accountsSeen: unknown[] = [];
let emailsStored = 0;
for (const u of users) {
  const login = await post('/api/auth/login', { username: u.username, password: u.password });
  const bearer = `Bearer ${json(login).data.tokens.accessToken}`;
  const accounts = await api.send({ method: 'GET', path: '/api/email-accounts', headers: { Authorization: bearer } });
  for (const a of json(accounts).data.items) accountsSeen.push({ email: a.email, sync: a.sync });
  const emails = await api.send({ method: 'GET', path: '/api/emails?limit=1', headers: { Authorization: bearer } });
  emailsStored += json(emails).data.pagination.total;
}

console.log('\n=== soak result ===');
console.log(`measured window: ${elapsed.toFixed(0)} s, ${WORKERS} workers, ${USERS} users`);
console.log(`requests served: ${stats.samples.length} (${(stats.samples.length / elapsed).toFixed(1)}/s), errors: ${errors.length}`);
console.log(
  `latency ms: p50 ${percentile(all, 50).toFixed(1)}, p95 ${percentile(all, 95).toFixed(1)}, p99 ${percentile(all, 99).toFixed(1)}, max ${all[all.length - 1].toFixed(1)}`,
);
for (const [op, xs] of [...byOp].sort((a, b) => b[1].length - a[1].length)) {
  xs.sort((a, b) => a - b);
  console.log(`  ${op.padEnd(17)} ${String(xs.length).padStart(7)} req  p50 ${percentile(xs, 50).toFixed(1).padStart(6)}  p99 ${percentile(xs, 99).toFixed(1).padStart(7)}`);
}
console.log(
  `server RSS (median of the first vs the last ${edge.toFixed(0)} s): ${rssStart.toFixed(1)} MB -> ${rssEnd.toFixed(1)} MB (${(((rssEnd - rssStart) / rssStart) * 100).toFixed(1)} %); min ${Math.min(...memory.map((m) => m.rss)).toFixed(1)}, max ${Math.max(...memory.map((m) => m.rss)).toFixed(1)}`,
);
console.log(`V8 heap used (same windows): ${heapStart.toFixed(1)} MB -> ${heapEnd.toFixed(1)} MB (${(((heapEnd - heapStart) / heapStart) * 100).toFixed(1)} %)`);
console.log(`RSS samples (MB, every 10 s): ${memory.map((m) => m.rss.toFixed(0)).join(' ')}`);
console.log(`mail: ${delivered} messages delivered during the soak, ${emailsStored} emails stored for ${USERS} users (seeded ${MESSAGES * USERS} + delivered)`);
console.log(`sync status: ${JSON.stringify(accountsSeen)}`);
console.log(`server log: ${logCounts.warn} warn lines, ${logCounts.error} error lines`);
for (const line of errorLines) console.log(`  ${line}`);
for (const f of stats.failures) console.log(`  failure: ${f}`);

await api.close();
child.kill('SIGTERM');
const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
console.log(`server stopped with exit code ${code}`);
fs.rmSync(dir, { recursive: true, force: true });

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
