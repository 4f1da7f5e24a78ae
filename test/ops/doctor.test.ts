import { expect } from 'chai';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { cliJson, freshDatabase } from '../admin/cli-helpers.js';
import { runCli } from '../support/cli.js';
import { requireDatabaseUrl } from '../support/test-env.js';
import { freshMailUser } from '../sync/helpers.js';

const ALL_CHECKS = [
  'configuration',
  'database',
  'unaccent',
  'connections',
  'database-role',
  'clock',
  'migrations',
  'mail-server',
  'data-dir',
  'disk-space',
  'storage',
  'secrets',
  'proxy',
  'workers',
  // One line per background job of src/app/background-jobs.ts (ADR 0145), from the same backlog as crm_job_*.
  'job:mail-sync',
  'job:retention',
  'job:outbox-pruning',
  'job:follow-ups-due',
  'job:tasks-due',
  'job:webhook-deliveries',
  'job:scheduled-sends',
  'job:attachment-cleanup',
];

/** A local port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Check {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  summary: string;
  fix?: string;
}

const byName = (checks: Check[]) => Object.fromEntries(checks.map((c) => [c.name, c]));

/** `crm-admin doctor` through the real CLI, on a database of its own (so "every account" is this file's). */
describe('crm-admin doctor', function () {
  // Each test runs the CLI a few times (a second or two each on an idle machine).
  this.timeout(300_000);
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'doctor-'));

  before(async () => {
    // Connected as a role of its own: doctor warns about a superuser (ADR 0121).
    ({ env, drop } = await freshDatabase('crm_doctor', { migrated: false, appRole: true }));
    env = { ...env, STORAGE_RESERVE_MB: '1', CRM_DATA_DIR: path.join(tmp, 'data') };
    // An installation's data directory exists (doctor creates none: a missing one fails, see below).
    fs.mkdirSync(env.CRM_DATA_DIR, { mode: 0o700 });
  });

  after(async () => {
    await drop?.();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('on a database with pending migrations reports them, migrates nothing, and exits 0 (warnings only)', async () => {
    const res = await runCli(['doctor', '--json'], env);
    expect(res.status, res.stderr).to.equal(0);
    const report = JSON.parse(res.stdout) as { ok: boolean; checks: Check[] };
    const checks = byName(report.checks);
    expect(checks.migrations.status).to.equal('warn');
    expect(checks.migrations.summary).to.match(/pending: 0001-initial-schema/);
    expect(checks.migrations.fix).to.contain('crm-admin db migrate');
    const db = new pg.Client({ connectionString: env.DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query("SELECT to_regclass('schema_migrations') IS NULL AS untouched");
      expect(rows[0].untouched, 'doctor applied migrations').to.equal(true);
    } finally {
      await db.end();
    }
  });

  it('a healthy installation: every check listed and ok, exit 0, in --json and as a table', async () => {
    const migrated = await runCli(['db', 'migrate'], env);
    expect(migrated.status, migrated.stderr).to.equal(0);
    const mail = await freshMailUser('doctor');
    const created = await cliJson(['users', 'create', '--username', `doctor${Date.now()}`, '--email', mail.user, '--email-password-stdin'], mail.pass, env);
    // A sync that took a lease just now: the workers check sees activity.
    const synced = await runCli(['sync', 'run', '--account', created.emailAccount.id as string], env);
    expect(synced.status, synced.stderr).to.equal(0);

    const res = await runCli(['doctor', '--json'], env);
    expect(res.status, res.stderr).to.equal(0);
    const report = JSON.parse(res.stdout) as { ok: boolean; checks: Check[] };
    expect(report.ok).to.equal(true);
    expect(report.checks.map((c) => c.name)).to.have.members(ALL_CHECKS);
    for (const check of report.checks) {
      expect(check.status, JSON.stringify(check)).to.equal('ok');
      expect(check.summary).to.be.a('string').and.not.equal('');
    }
    expect(byName(report.checks).workers.summary).to.match(/^1 account\(s\); last lease \d+ s ago$/);

    const table = await runCli(['doctor'], env);
    expect(table.status, table.stderr).to.equal(0);
    for (const name of ALL_CHECKS) expect(table.stdout).to.contain(name);
    expect(table.stdout).to.contain(`${ALL_CHECKS.length} ok, 0 warn, 0 fail`);
  });

  it('warns when connected as a superuser, naming the role and the fix', async () => {
    const asSuperuser = new URL(env.DATABASE_URL);
    const suite = new URL(requireDatabaseUrl());
    asSuperuser.username = suite.username;
    asSuperuser.password = suite.password;
    const res = await runCli(['doctor', '--json'], { ...env, DATABASE_URL: asSuperuser.toString() });
    const role = byName((JSON.parse(res.stdout) as { checks: Check[] }).checks)['database-role'];
    expect(role.status, JSON.stringify(role)).to.equal('warn');
    expect(role.summary).to.equal(`connected as ${suite.username}, a superuser`);
    expect(role.fix).to.contain('docs/operations.md');
  });

  it('warns when the service connects as a role that may change the schema (its owner), naming the fix', async () => {
    // One role for both, as before 0.6.0: the owner's URL as DATABASE_URL (issue 52, finding 15).
    const { DATABASE_OWNER_URL: ownerUrl, ...oneRole } = env;
    const res = await runCli(['doctor', '--json'], { ...oneRole, DATABASE_URL: ownerUrl });
    const role = byName((JSON.parse(res.stdout) as { checks: Check[] }).checks)['database-role'];
    expect(role.status, JSON.stringify(role)).to.equal('warn');
    expect(role.summary).to.equal(`connected as ${new URL(ownerUrl).username}, which may change the schema (CREATE in the database or its schema)`);
    expect(role.fix).to.contain('DATABASE_OWNER_URL');
  });

  it('a mail server that does not answer and a data dir that is not writable fail with their fix, exit 1', async () => {
    const notADir = path.join(tmp, 'a-file');
    fs.writeFileSync(notADir, 'not a directory');
    const broken = { ...env, JMAP_SESSION_URL: `http://127.0.0.1:${await closedPort()}/.well-known/jmap`, CRM_DATA_DIR: path.join(notADir, 'data') };
    const res = await runCli(['doctor', '--json'], broken);
    expect(res.status).to.equal(1);
    const report = JSON.parse(res.stdout) as { ok: boolean; checks: Check[] };
    expect(report.ok).to.equal(false);
    const checks = byName(report.checks);
    expect(checks['mail-server']).to.include({ status: 'fail' });
    expect(checks['mail-server'].summary).to.contain('does not answer (ECONNREFUSED)');
    expect(checks['mail-server'].fix).to.contain('JMAP_SESSION_URL');
    expect(checks['data-dir']).to.include({ status: 'fail' });
    expect(checks['data-dir'].fix).to.contain('CRM_DATA_DIR');
    // What still works is still checked.
    expect(checks.database.status).to.equal('ok');

    const table = await runCli(['doctor'], broken);
    expect(table.status).to.equal(1);
    expect(table.stdout)
      .to.match(/mail-server\s+FAIL/)
      .and.contain('start the mail server or correct JMAP_SESSION_URL');
  });

  it('a secrets file readable by others fails with chmod 600 as its fix; 0600 passes', async () => {
    const file = path.join(tmp, 'jwt-access');
    fs.writeFileSync(file, 'doctor-access-secret-0123456789abcdef0123456789', { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    const { JWT_ACCESS_SECRET: _given, ...rest } = env;
    const withFile = { ...rest, JWT_ACCESS_SECRET_FILE: file };
    const open = await runCli(['doctor', '--json'], withFile);
    expect(open.status).to.equal(1);
    const secrets = byName((JSON.parse(open.stdout) as { checks: Check[] }).checks).secrets;
    expect(secrets).to.include({ status: 'fail' });
    expect(secrets.summary).to.contain(`${file} (644)`);
    expect(secrets.fix).to.equal(`chmod 600 ${file}`);

    fs.chmodSync(file, 0o600);
    const closed = await runCli(['doctor', '--json'], withFile);
    expect(closed.status, closed.stdout).to.equal(0);
    expect(byName((JSON.parse(closed.stdout) as { checks: Check[] }).checks).secrets.status).to.equal('ok');
  });

  // Issue 52, finding 9: only the service's own *_FILE variables name secrets.
  it("takes another program's *_FILE (SSL_CERT_FILE) for no secret of ours", async () => {
    const bundle = path.join(tmp, 'ca-bundle.pem');
    fs.writeFileSync(bundle, '-----BEGIN CERTIFICATE-----\n', { mode: 0o644 });
    fs.chmodSync(bundle, 0o644);
    const res = await runCli(['doctor', '--json'], { ...env, SSL_CERT_FILE: bundle, NODE_EXTRA_CA_CERTS_FILE: bundle });
    const secrets = byName((JSON.parse(res.stdout) as { checks: Check[] }).checks).secrets;
    expect(secrets.status, JSON.stringify(secrets)).to.equal('ok');
    expect(secrets.summary).to.not.contain(bundle);
    expect(res.status, res.stdout).to.equal(0);
  });

  it("checks the modes of the embedded PostgreSQL's password files in the data directory", async () => {
    for (const name of ['postgres.password', 'postgres.app-password']) {
      const file = path.join(env.CRM_DATA_DIR, name);
      fs.writeFileSync(file, 'not-a-real-password', { mode: 0o600 });
      fs.chmodSync(file, 0o640);
      try {
        const res = await runCli(['doctor', '--json'], env);
        expect(res.status, `${name}: ${res.stdout}`).to.equal(1);
        const secrets = byName((JSON.parse(res.stdout) as { checks: Check[] }).checks).secrets;
        expect(secrets).to.include({ status: 'fail', fix: `chmod 600 ${file}` });
        expect(secrets.summary).to.contain(`${file} (640)`);
      } finally {
        fs.rmSync(file);
      }
    }
  });

  it('with no data directory reports it as a failure and creates nothing (no new installation)', async () => {
    const missing = path.join(tmp, 'no-such-installation');
    const { JWT_ACCESS_SECRET: _a, JWT_REFRESH_SECRET: _r, CRM_ENCRYPTION_KEY: _k, ...withoutSecrets } = env;
    const res = await runCli(['doctor', '--json'], { ...withoutSecrets, DATABASE_URL: '', DATABASE_OWNER_URL: '', CRM_DATA_DIR: missing });
    expect(fs.existsSync(missing), 'doctor created the data directory').to.equal(false);
    expect(res.status, res.stdout + res.stderr).to.equal(1);
    const report = JSON.parse(res.stdout) as { ok: boolean; checks: Check[] };
    expect(report.ok).to.equal(false);
    const checks = byName(report.checks);
    expect(checks['data-dir']).to.include({ status: 'fail', summary: `${missing} does not exist` });
    expect(checks.database).to.include({ status: 'fail', summary: `no data directory at ${missing}` });
    expect(checks.database.fix).to.contain('never by doctor');
  });

  it('an invalid configuration fails the configuration check and exits 1', async () => {
    const res = await runCli(['doctor', '--json'], { ...env, PORT: 'not-a-port' });
    expect(res.status).to.equal(1);
    const report = JSON.parse(res.stdout) as { ok: boolean; checks: Check[] };
    expect(report.checks[0]).to.include({ name: 'configuration', status: 'fail' });
    expect(report.checks[0].summary).to.contain('PORT');
  });
});
