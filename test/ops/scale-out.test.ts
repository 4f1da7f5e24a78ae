import { expect } from 'chai';
import { spawn } from 'node:child_process';
import pg from 'pg';
import { LOGIN_LIMITS } from '../../src/auth/login-throttle.js';
import { cliJson, freshDatabase } from '../admin/cli-helpers.js';
import { childEnv, crmAdmin, startServe, type ServeProcess } from '../support/cli.js';
import { createUser } from '../support/factories.js';
import { randomIp } from '../support/login.js';
import { sessionFor } from '../support/auth.js';
import { baseTestEnv, testContext } from '../support/harness.js';
import { until } from '../support/poll.js';
import { freshMailUser, put } from '../sync/helpers.js';

/** Cookies a response set, as `name=value` pairs (empty values = cleared cookies left out). */
function cookiesOf(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const eq = pair.indexOf('=');
    const value = pair.slice(eq + 1);
    if (value) out[pair.slice(0, eq)] = value;
  }
  return out;
}

function post(base: string, path: string, init: { body?: unknown; cookie?: string; bearer?: string; ip?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (init.cookie) headers.Cookie = init.cookie;
  if (init.bearer) headers.Authorization = `Bearer ${init.bearer}`;
  if (init.ip) headers['X-Forwarded-For'] = init.ip;
  return fetch(`${base}${path}`, { method: 'POST', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
}

/**
 * Two `crm-admin serve --no-sync` replicas on one PostgreSQL (the suite's database), sharing only
 * DATABASE_URL and the secrets, as behind a load balancer: nothing about a session or a throttling
 * counter may live in one process.
 */
describe('scale-out: two API replicas on one database', function () {
  this.timeout(120_000);
  let a: ServeProcess;
  let b: ServeProcess;

  before(async () => {
    const env = { ...baseTestEnv(), TRUST_PROXY: '1', LOG_LEVEL: 'info' };
    [a, b] = await Promise.all([startServe(['--no-sync'], env), startServe(['--no-sync'], env)]);
  });

  after(async () => {
    for (const serve of [a, b]) serve?.child.kill('SIGTERM');
    const codes = await Promise.all([a?.exited, b?.exited]);
    expect(codes).to.deep.equal([0, 0]);
  });

  it('accepts on one instance the session and refresh token issued by the other, and a logout on either ends it', async () => {
    const password = 'a long passphrase for scale out';
    const user = await createUser({ password, emailSetupSkipped: true });
    const ip = randomIp();
    const login = await post(a.url, '/api/auth/login', { body: { username: user.username, password, rememberMe: true }, ip });
    expect(login.status).to.equal(200);
    const issued = cookiesOf(login);
    // Beside them the knownDevice cookie (path /api/auth/login; its key derives from the shared JWT_REFRESH_SECRET).
    expect(issued).to.include.all.keys('accessToken', 'refreshToken', 'knownDevice');

    const me = await fetch(`${b.url}/api/auth/me`, { headers: { Authorization: `Bearer ${issued.accessToken}` } });
    expect(me.status).to.equal(200);
    expect((await me.json()).data.user.username).to.equal(user.username);

    const refreshed = await post(b.url, '/api/auth/refresh', { cookie: `refreshToken=${issued.refreshToken}`, ip });
    expect(refreshed.status).to.equal(200);
    const body = await refreshed.json();
    expect(body.message).to.equal('Token obnovený');
    const rotated = cookiesOf(refreshed);
    expect(rotated.accessToken).to.equal(body.data.accessToken);
    expect(rotated.refreshToken).to.be.a('string').and.not.equal(issued.refreshToken);

    // The token B rotated works back on A.
    const again = await post(a.url, '/api/auth/refresh', { cookie: `refreshToken=${rotated.refreshToken}`, ip });
    expect(again.status).to.equal(200);
    const latest = cookiesOf(again);

    const logout = await post(b.url, '/api/auth/logout', { bearer: latest.accessToken, ip });
    expect(logout.status).to.equal(200);
    // A learns of the revocation from the database, not from its own memory.
    await until(
      async () => {
        const res = await fetch(`${a.url}/api/auth/me`, { headers: { Authorization: `Bearer ${latest.accessToken}` } });
        return res.status === 401;
      },
      { what: 'A rejects the revoked session', timeoutMs: 15_000 },
    );
    const dead = await post(a.url, '/api/auth/refresh', { cookie: `refreshToken=${latest.refreshToken}`, ip });
    expect(dead.status).to.equal(401);
  });

  it('counts failed logins across both instances until 429', async () => {
    const password = 'another long passphrase';
    const user = await createUser({ password, emailSetupSkipped: true });
    const ip = randomIp();
    const limit = LOGIN_LIMITS.perUsernameAndIp.points;
    // Alternating: neither instance alone sees more than half of the failures.
    for (let i = 0; i < limit; i++) {
      const res = await post(i % 2 === 0 ? a.url : b.url, '/api/auth/login', { body: { username: user.username, password: `wrong-${i}-guess` }, ip });
      expect(res.status, `attempt ${i + 1}`).to.equal(401);
    }
    for (const instance of [a, b]) {
      const blocked = await post(instance.url, '/api/auth/login', { body: { username: user.username, password }, ip });
      expect(blocked.status).to.equal(429);
      expect(Number(blocked.headers.get('retry-after'))).to.be.greaterThan(0);
    }
    // Another address still gets in: the throttle never locks the account itself.
    const other = await post(b.url, '/api/auth/login', { body: { username: user.username, password }, ip: randomIp() });
    expect(other.status).to.equal(200);
  });
});

/** The `mail sync run` log lines of a serve process, for one account. */
function syncRuns(serve: ServeProcess, accountId: string): Array<{ outcome: string; mode: string | null; stored: number }> {
  return serve
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{') && l.includes('"mail sync run"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.accountId === accountId)
    .map((l) => ({
      outcome: l.outcome as string,
      mode: (l.mode as string | null) ?? null,
      stored: l.stored as number,
    }));
}

describe('scale-out: a sync requested on two instances at once', function () {
  this.timeout(180_000);
  let a: ServeProcess;
  let b: ServeProcess;

  before(async () => {
    // Full instances (API and scheduler) whose SYNC_CRON never fires during the test: only the requests sync.
    const env = { ...baseTestEnv(), LOG_LEVEL: 'info', SYNC_CRON: '0 0 1 1 *' };
    [a, b] = await Promise.all([startServe([], env), startServe([], env)]);
  });

  after(async () => {
    for (const serve of [a, b]) serve?.child.kill('SIGTERM');
    expect(await Promise.all([a?.exited, b?.exited])).to.deep.equal([0, 0]);
  });

  it('runs once: one instance syncs the mailbox, the other never at the same time, nothing stored twice', async () => {
    const mail = await freshMailUser('ops');
    const senders = ['ana@customer.example', 'boris@customer.example', 'cyril@customer.example'];
    for (const [i, from] of senders.entries()) await put(mail, 'INBOX', { from, to: mail.user, subject: `Order ${i}`, body: `Body ${i}` });
    const owner = await createUser({ password: 'a long passphrase for sync', emailSetupSkipped: true });
    const ctx = await testContext();
    // Linked in-process (no sync starts), so that the two requests below are the only triggers.
    const account = await ctx.services.emailAccounts.add(owner.user.id, { email: mail.user, emailPassword: mail.pass }, { actor: 'test' }, { requestSync: false });
    const session = await sessionFor(owner);

    const requests = await Promise.all([a, b].map((s) => fetch(`${s.url}/api/email-accounts/${account.id}/sync`, { method: 'POST', headers: { Authorization: session.bearer } })));
    expect(requests.map((r) => r.status)).to.deep.equal([202, 202]);

    const status = async () => {
      const res = await fetch(`${a.url}/api/email-accounts`, { headers: { Authorization: session.bearer } });
      const items = (await res.json()).data.items as Array<{ id: string; sync: { status: string } }>;
      return items.find((i) => i.id === account.id)!.sync.status;
    };
    // The status the first run ended with: a request that arrived while it ran starts another run right
    // after it (test/medium/sync/sync-now-during-run.test.ts), which may already show 'syncing' on a second read.
    let ended = '';
    await until(async () => ['ok', 'error', 'auth_failed'].includes((ended = await status())), { what: 'the sync has finished', timeoutMs: 60_000 });
    expect(ended).to.equal('ok');
    // A run logs when it ends; let the other instance's run (if it got the lease afterwards) finish too.
    await until(async () => (await fetch(`${b.url}/api/health/ready`)).ok && (await status()) !== 'syncing', { what: 'both instances idle', timeoutMs: 15_000 });

    // The instances' own metrics tell the same story as their logs (scraped from loopback, as Prometheus
    // would). A run may still end between two reads (a request that came during the first run, or a cron
    // turn): read both until they agree; a metric counted twice would never agree.
    const okMetrics = async () => {
      let ok = 0;
      for (const serve of [a, b]) ok += Number(/^crm_sync_runs_total\{result="ok"\} (\d+)$/m.exec(await (await fetch(`${serve.url}/api/metrics`)).text())?.[1] ?? 0);
      return ok;
    };
    const loggedRuns = () => [...syncRuns(a, account.id), ...syncRuns(b, account.id)].filter((r) => r.outcome !== 'skipped');
    await until(async () => (await okMetrics()) === loggedRuns().filter((r) => r.outcome === 'ok').length, { what: 'the metrics and the logs agree', timeoutMs: 15_000 });
    const runs = loggedRuns();
    const full = runs.filter((r) => r.mode === 'full');
    expect(full, JSON.stringify(runs)).to.have.length(1);
    expect(full[0].outcome).to.equal('ok');
    // Any other run got the lease only after the first had given it up: nothing was left to store.
    for (const other of runs.filter((r) => r !== full[0])) expect(other.stored, JSON.stringify(other)).to.equal(0);
    const [{ emails, contacts }] = (await ctx.db.sequelize.query(
      `SELECT (SELECT count(*) FROM emails WHERE email_account_id = $1)::int AS emails,
              (SELECT count(*) FROM contacts WHERE email_account_id = $1)::int AS contacts`,
      { bind: [account.id], type: 'SELECT' },
    )) as Array<{ emails: number; contacts: number }>;
    expect({ emails, contacts }).to.deep.equal({ emails: 3, contacts: 3 });
  });
});

interface Worker {
  output: () => string;
  stop: () => Promise<number | null>;
}

/** `crm-admin serve --no-api`: a sync worker, ready once it logs its start. */
function startWorker(env: Record<string, string>): Promise<Worker> {
  const child = spawn(crmAdmin, ['serve', '--no-api'], { env: { ...childEnv(), PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = () => {
    child.kill('SIGTERM');
    return exited;
  };
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('"crm-admin serve started"')) resolve({ output: () => out, stop });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => reject(new Error(`worker exited with ${code}:\n${out}`)));
  });
}

/**
 * The `mail sync run` lines of a worker: which account, the turn it served (null: its first run), the
 * outcome, and when the run ended (the line's timestamp: the next turn is chosen then).
 */
function workerRuns(worker: Worker): Array<{ accountId: string; dueAt: string | null; outcome: string; endedAt: number }> {
  return worker
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{') && l.includes('"mail sync run"'))
    .map((l) => JSON.parse(l) as { accountId: string; dueAt?: string | null; outcome: string; timestamp: string })
    .map((l) => ({ accountId: l.accountId, dueAt: l.dueAt ?? null, outcome: l.outcome, endedAt: Date.parse(l.timestamp) }));
}

/**
 * Two sync workers on one PostgreSQL, as deployed (`serve --no-api` twice, default schedule but a
 * short SYNC_INTERVAL): every account is synced once per turn by one of them, no turn is missed or
 * served twice, and the data holds every email once. The database is a fresh one, so that "every
 * account" means the accounts of this test.
 */
describe('scale-out: two sync workers on one database', function () {
  this.timeout(180_000);
  const INTERVAL_MS = 4000;
  let env: Record<string, string>;
  let drop: (() => Promise<void>) | undefined;
  const workers: Worker[] = [];

  before(async () => {
    const fresh = await freshDatabase('crm_sync_workers');
    drop = fresh.drop;
    const { SYNC_CRON: _never, ...rest } = fresh.env;
    env = { ...rest, SYNC_INTERVAL: `${INTERVAL_MS / 1000}s`, LOG_LEVEL: 'info' };
  });

  after(async () => {
    const codes = await Promise.all(workers.map((w) => w.stop()));
    await drop?.();
    expect(
      codes.every((c) => c === 0),
      `worker exit codes ${codes.join(', ')}`,
    ).to.equal(true);
  });

  it('between them sync every account once per turn, miss no turn, store nothing twice', async () => {
    const mail = await freshMailUser('workers');
    for (let i = 1; i <= 3; i++) await put(mail, 'INBOX', { from: `w${i}@customer.example`, to: mail.user, subject: `Worker mail ${i}`, body: `b ${i}` });
    const accountIds: string[] = [];
    for (let i = 0; i < 4; i++) {
      const created = await cliJson(['users', 'create', '--username', `worker${i}${Date.now()}`, '--email', mail.user, '--email-password-stdin'], mail.pass, env);
      accountIds.push(created.emailAccount.id as string);
    }
    workers.push(...(await Promise.all([startWorker(env), startWorker(env)])));

    const runs = () => workers.flatMap((w) => workerRuns(w));
    // The first run of each account plus three turns.
    await until(async () => accountIds.every((id) => runs().filter((r) => r.accountId === id).length >= 4), { what: 'three turns of every account', timeoutMs: 90_000 });

    for (const id of accountIds) {
      const mine = runs().filter((r) => r.accountId === id);
      for (const r of mine) expect(r.outcome, JSON.stringify(r)).to.equal('ok');
      const served = mine
        .filter((r) => r.dueAt !== null)
        .map((r) => ({ turn: Date.parse(r.dueAt!), endedAt: r.endedAt }))
        .sort((a, b) => a.turn - b.turn);
      const turns = served.map((s) => s.turn);
      expect(new Set(turns).size, `account ${id}: a turn served twice ${JSON.stringify(mine)}`).to.equal(turns.length);
      for (let i = 1; i < served.length; i++) {
        const gap = served[i].turn - served[i - 1].turn;
        // Every turn on the account's own phase, whole intervals apart.
        expect(gap % INTERVAL_MS, `account ${id}: turns ${JSON.stringify(mine)}`).to.equal(0);
        // No turn missed: a slot between two served turns may only pass while the earlier run was still
        // going (the next turn is the first slot after a run ends; a loaded machine makes runs long).
        for (let slot = served[i - 1].turn + INTERVAL_MS; slot < served[i].turn; slot += INTERVAL_MS) {
          expect(slot, `account ${id}: the turn at ${new Date(slot).toISOString()} was missed ${JSON.stringify(mine)}`).to.be.at.most(served[i - 1].endedAt);
        }
      }
    }

    const db = new pg.Client({ connectionString: env.DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query<{ id: string; emails: number; distinct_ids: number }>(
        `SELECT a.id, count(e.id)::int AS emails, count(DISTINCT e.jmap_id)::int AS distinct_ids
           FROM email_accounts a LEFT JOIN emails e ON e.email_account_id = a.id GROUP BY a.id`,
      );
      expect(rows.map((r) => [r.emails, r.distinct_ids])).to.deep.equal(accountIds.map(() => [3, 3]));
    } finally {
      await db.end();
    }
  });
});
