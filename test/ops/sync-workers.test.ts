import { expect } from 'chai';
import pg from 'pg';
import { cliJson, freshDatabase } from '../admin/cli-helpers.js';
import { runCli, startServe, type ServeProcess } from '../support/cli.js';
import { freshMailUser, put } from '../sync/helpers.js';

/** The value of one sample of a Prometheus text exposition, or undefined. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const escaped = `${name}${labels}`.replace(/[{}"]/g, (c) => `\\${c}`);
  const match = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : undefined;
}

const HOLDER = 'web2:4242:worker:abcd1234';

/**
 * Workers one can see: a `serve --no-api` worker answers health, readiness and metrics; the crm_sync_*
 * gauges come from the database, so an API replica reports a sync done by another process; `sync
 * status` names the lease holder and flags an expired lease; `sync run` says why it skipped and fails.
 * A database of its own, so that "every account" is the account of this file.
 */
describe('sync workers: visible from outside', function () {
  this.timeout(120_000);
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  let db: pg.Client;
  let accountId: string;
  const serves: ServeProcess[] = [];

  const setLease = (until: string) =>
    db.query(`UPDATE mail_sync_states SET locked_by = $1, locked_until = now() + $2::interval, status = 'syncing' WHERE email_account_id = $3`, [HOLDER, until, accountId]);

  before(async () => {
    ({ env, drop } = await freshDatabase('crm_sync_visible'));
    // A day's interval: after a run the account's next turn is hours away, so "due 0 right after a
    // run" cannot meet the turn coming round (with the default 30 s it did, now and then, on a slow machine).
    env = { ...env, LOG_LEVEL: 'info', SYNC_INTERVAL: '24h' };
    const mail = await freshMailUser('visible');
    await put(mail, 'INBOX', { from: 'v1@customer.example', to: mail.user, subject: 'Visible 1', body: 'one' });
    const created = await cliJson(['users', 'create', '--username', `visible${Date.now()}`, '--email', mail.user, '--email-password-stdin'], mail.pass, env);
    accountId = created.emailAccount.id as string;
    db = new pg.Client({ connectionString: env.DATABASE_URL });
    await db.connect();
  });

  after(async () => {
    for (const s of serves) s.child.kill('SIGTERM');
    const codes = await Promise.all(serves.map((s) => s.exited));
    await db?.end();
    await drop?.();
    expect(
      codes.every((c) => c === 0),
      `serve exit codes ${codes.join(', ')}`,
    ).to.equal(true);
  });

  it('a serve --no-api worker answers health, ready and metrics on PORT, and 404 in the envelope elsewhere', async () => {
    const worker = await startServe(['--no-api'], env);
    serves.push(worker);
    const health = await fetch(`${worker.url}/api/health`);
    expect(health.status).to.equal(200);
    expect((await health.json()).data.status).to.equal('ok');
    const ready = await fetch(`${worker.url}/api/health/ready`);
    expect(ready.status).to.equal(200);
    expect((await ready.json()).data.status).to.equal('ready');
    const metrics = await fetch(`${worker.url}/api/metrics`);
    expect(metrics.status).to.equal(200);
    const text = await metrics.text();
    expect(text).to.contain('# TYPE crm_sync_accounts gauge');
    expect(text).to.contain('crm_build_info{');
    for (const [method, path] of [
      ['GET', '/api/users'],
      ['POST', '/api/auth/login'],
      ['GET', '/'],
    ]) {
      const res = await fetch(`${worker.url}${path}`, { method, headers: { 'Content-Type': 'application/json' }, body: method === 'POST' ? '{}' : undefined });
      expect(res.status, `${method} ${path}`).to.equal(404);
      const body = await res.json();
      expect(body).to.deep.include({ success: false });
      expect(body.error).to.include({ statusCode: 404, code: 'route_not_found' });
    }
  });

  it("an API replica's crm_sync_* gauges report a sync done and a lease held by other processes", async () => {
    const api = await startServe(['--no-sync'], env);
    serves.push(api);
    const scrape = async () => (await fetch(`${api.url}/api/metrics`)).text();
    const before = await scrape();
    expect(sample(before, 'crm_sync_accounts', '{status="ok"}')).to.equal(0);
    expect(sample(before, 'crm_sync_leases_held')).to.equal(0);

    // Another process (crm-admin) syncs the account.
    const run = await runCli(['sync', 'run', '--account', accountId, '--json'], env);
    expect(run.status, run.stderr).to.equal(0);
    const synced = await scrape();
    expect(sample(synced, 'crm_sync_accounts', '{status="ok"}')).to.equal(1);
    expect(sample(synced, 'crm_sync_accounts_due')).to.equal(0);

    // A worker elsewhere is syncing it right now.
    await setLease('5 minutes');
    const syncing = await scrape();
    expect(sample(syncing, 'crm_sync_leases_held')).to.equal(1);
    expect(sample(syncing, 'crm_sync_accounts', '{status="syncing"}')).to.equal(1);
    expect(sample(syncing, 'crm_sync_leases_expired')).to.equal(0);

    // ... and died: its lease expired.
    await setLease('-1 minute');
    const dead = await scrape();
    expect(sample(dead, 'crm_sync_leases_held')).to.equal(0);
    expect(sample(dead, 'crm_sync_leases_expired')).to.equal(1);
  });

  it('sync status shows the lease holder (host, pid, role) and its expiry, and flags an expired lease', async () => {
    await setLease('5 minutes');
    const live = await cliJson(['sync', 'status'], undefined, env);
    expect(live.items).to.have.length(1);
    expect(live.items[0].lease.holder).to.deep.equal({ id: HOLDER, host: 'web2', pid: 4242, role: 'worker' });
    expect(live.items[0].lease.expired).to.equal(false);
    expect(Date.parse(live.items[0].lease.until)).to.be.greaterThan(Date.now());
    const liveText = await runCli(['sync', 'status'], env);
    expect(liveText.stdout).to.contain('syncing (running)').and.contain('worker pid 4242 on web2');

    await setLease('-1 minute');
    const expired = await cliJson(['sync', 'status'], undefined, env);
    expect(expired.items[0].lease.expired).to.equal(true);
    expect(expired.items[0].running).to.equal(false);
    const expiredText = await runCli(['sync', 'status'], env);
    expect(expiredText.stdout).to.contain('(lease expired)').and.contain('worker pid 4242 on web2');
  });

  it('sync run that could not take the lease says who holds it and exits non-zero', async () => {
    await setLease('5 minutes');
    const res = await runCli(['sync', 'run', '--account', accountId], env);
    expect(res.status).to.equal(1);
    expect(res.stdout).to.contain('skipped');
    expect(res.stderr).to.contain('Synchronizácia neprebehla').and.contain('worker pid 4242 on web2');
    const json = await runCli(['sync', 'run', '--account', accountId, '--json'], env);
    expect(json.status).to.equal(1);
    const { results } = JSON.parse(json.stdout);
    expect(results[0]).to.include({ outcome: 'skipped' });
    expect(results[0].skipReason).to.match(/worker pid 4242 on web2 holds the lease until/);
  });

  it('taking over an expired lease is logged with who took over from whom', async () => {
    await setLease('-1 minute');
    const res = await runCli(['sync', 'run', '--account', accountId], { ...env, CLI_LOG_LEVEL: 'info' });
    expect(res.status, res.stderr).to.equal(0);
    const line = res.stderr.split('\n').find((l) => l.includes('"mail sync lease taken over"'));
    expect(line, res.stderr).to.be.a('string');
    const logged = JSON.parse(line!.slice(line!.indexOf('{')));
    expect(logged).to.include({ accountId, from: HOLDER, fromHolder: 'worker pid 4242 on web2' });
    expect(logged.by).to.match(/:\d+:cli:[0-9a-f]+$/);
    const after = await cliJson(['sync', 'status'], undefined, env);
    expect(after.items[0].lease).to.equal(null);
    expect(after.items[0].status).to.equal('ok');
  });
});
