import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { EmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { runCli, startServe, type ServeProcess } from '../support/cli.js';
import { baseTestEnv } from '../support/harness.js';
import { until } from '../support/poll.js';

/**
 * The embedded PostgreSQL under `crm-admin serve` (docs/adr/0001-embedded-postgresql-via-pg-ctl.md): a killed postmaster
 * is started again by the service on the same port with every acknowledged write kept; a data directory
 * of another major version is refused in one sentence; a second serve never stops a database it did not
 * start.
 */
describe('embedded PostgreSQL supervision', function () {
  this.timeout(180_000);
  let root: string;
  let env: Record<string, string>;
  const serves: ServeProcess[] = [];

  before(() => {
    // Not a mkdtemp (mode 700): the postgres OS user must reach the data directory.
    root = path.join('/tmp', `crm-pgsup-${process.pid}-${Date.now()}`);
    fs.mkdirSync(root, { mode: 0o755 });
    fs.chmodSync(root, 0o755);
    // Without NODE_ENV, as on a server (NODE_ENV=test would put oclif into its development mode).
    const { NODE_ENV: _test, ...base } = baseTestEnv();
    env = { ...base, DATABASE_URL: '', LOG_LEVEL: 'info', SYNC_CRON: '0 0 1 1 *', SHUTDOWN_TIMEOUT_MS: '5000' };
  });

  afterEach(async () => {
    for (const serve of serves.splice(0)) {
      if (serve.child.exitCode === null) {
        serve.child.kill('SIGTERM');
        await serve.exited;
      }
    }
  });

  after(async () => {
    for (const dir of fs.existsSync(root) ? fs.readdirSync(root) : []) {
      await new EmbeddedPostgres(path.join(root, dir)).stop().catch(() => undefined);
    }
    fs.rmSync(root, { recursive: true, force: true });
  });

  function dataDir(name: string): string {
    const dir = path.join(root, name);
    fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
    return dir;
  }

  function postmasterPid(dir: string): number | undefined {
    try {
      return Number(fs.readFileSync(path.join(dir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    } catch {
      return undefined;
    }
  }

  function alive(pid: number | undefined): boolean {
    if (pid === undefined) return false;
    try {
      process.kill(pid, 0);
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
    } catch {
      return false;
    }
  }

  async function start(dir: string): Promise<ServeProcess> {
    const serve = await startServe(['--no-sync'], { ...env, CRM_DATA_DIR: dir });
    serves.push(serve);
    return serve;
  }

  async function login(serve: ServeProcess, dir: string): Promise<string> {
    const created = await runCli(['users', 'create', '--username', 'sup.admin', '--role', 'admin', '--json'], { ...env, CRM_DATA_DIR: dir });
    expect(created.status, created.stderr).to.equal(0);
    const { temporaryPassword } = JSON.parse(created.stdout) as { temporaryPassword: string };
    const res = await fetch(`${serve.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'sup.admin', password: temporaryPassword }),
    });
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { data: { tokens: { accessToken: string } } };
    const bearer = `Bearer ${body.data.tokens.accessToken}`;
    // The onboarding gate: nothing but set-password answers a temporary password's session.
    const set = await fetch(`${serve.url}/api/auth/set-password`, {
      method: 'POST',
      headers: { Authorization: bearer, 'Content-Type': 'application/json' },
      body: JSON.stringify({ newPassword: 'supervision passphrase 42' }),
    });
    expect(set.status, await set.text()).to.equal(200);
    return bearer;
  }

  it('starts a SIGKILLed postmaster again on the same port under load, keeping every acknowledged write', async () => {
    const dir = dataDir('killed');
    const serve = await start(dir);
    const bearer = await login(serve, dir);
    const pidBefore = postmasterPid(dir)!;

    const acknowledged: string[] = [];
    const statuses = new Map<number, number>();
    let running = true;
    let n = 0;
    const worker = async () => {
      while (running) {
        const username = `sup.u${n++}`;
        try {
          const res = await fetch(`${serve.url}/api/admin/users`, {
            method: 'POST',
            headers: { Authorization: bearer, 'Content-Type': 'application/json' },
            body: JSON.stringify({ username, role: 'member' }),
            signal: AbortSignal.timeout(15_000),
          });
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 201 || res.status === 200) acknowledged.push(username);
        } catch {
          statuses.set(0, (statuses.get(0) ?? 0) + 1);
        }
      }
    };
    const workers = Array.from({ length: 6 }, () => worker());
    await until(() => acknowledged.length >= 30, { what: '30 acknowledged writes', timeoutMs: 60_000, intervalMs: 20 });

    const before = acknowledged.length;
    process.kill(pidBefore, 'SIGKILL');
    const killedAt = Date.now();
    // A generous deadline for a loaded machine; how fast it recovers is bench/'s question, not this test's.
    await until(
      async () => {
        const res = await fetch(`${serve.url}/api/health/ready`).catch(() => undefined);
        return res?.status === 200 && alive(postmasterPid(dir)) && postmasterPid(dir) !== pidBefore;
      },
      { what: 'ready again on a new postmaster', timeoutMs: 60_000, intervalMs: 100 },
    ).catch((err: Error) => {
      throw new Error(`${err.message}:\n${serve.output()}`);
    });
    const recoveryMs = Date.now() - killedAt;
    // Keep writing a moment after the restart: the pool must reach the new server.
    const afterRestart = acknowledged.length;
    await until(() => acknowledged.length >= afterRestart + 20, { what: '20 more acknowledged writes after the restart', timeoutMs: 60_000, intervalMs: 20 });
    running = false;
    await Promise.all(workers);

    console.log(
      `      recovery after SIGKILL of the postmaster: ${recoveryMs} ms; statuses ${JSON.stringify([...statuses])}; acknowledged ${before} before, ${acknowledged.length} in all`,
    );
    // Same process, same port: the service itself restarted the database.
    expect(serve.child.exitCode).to.equal(null);
    expect(
      [...statuses.keys()].every((s) => [200, 201, 503, 0].includes(s)),
      JSON.stringify([...statuses]),
    ).to.equal(true);
    expect(serve.output()).to.contain('embedded PostgreSQL started again');

    const { url } = await new EmbeddedPostgres(dir).start();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const rows = (await client.query<{ username: string }>("SELECT username FROM users WHERE username LIKE 'sup.u%'")).rows;
    await client.end();
    const present = new Set(rows.map((r) => r.username));
    const lost = acknowledged.filter((u) => !present.has(u));
    expect(lost, 'acknowledged writes lost').to.deep.equal([]);
  });

  it('leaves alone another process that took over the pid of a crashed server, and starts the server anyway', async () => {
    const dir = dataDir('stale-pid');
    const db = new EmbeddedPostgres(dir);
    await db.start();
    const lockFile = path.join(dir, 'postgres', 'postmaster.pid');
    const lines = fs.readFileSync(lockFile, 'utf8').split('\n');
    await db.stop();
    // As after a crash: the lock file is left behind, and its pid now belongs to something else.
    const bystander = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      lines[0] = String(bystander.pid);
      fs.writeFileSync(lockFile, lines.join('\n'));
      expect(await db.isRunning()).to.equal(false);
      await db.stop();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(bystander.exitCode, 'the bystander was signalled').to.equal(null);
      expect(bystander.signalCode, 'the bystander was signalled').to.equal(null);
      const { url } = await db.start();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      expect((await client.query<{ one: number }>('SELECT 1 AS one')).rows[0].one).to.equal(1);
      await client.end();
      await db.stop();
      expect(bystander.exitCode).to.equal(null);
    } finally {
      bystander.kill('SIGKILL');
    }
  });

  it('refuses a data directory of another PostgreSQL major version with one sentence and exit 1', async () => {
    const dir = dataDir('old-major');
    fs.mkdirSync(path.join(dir, 'postgres'), { mode: 0o700 });
    fs.writeFileSync(path.join(dir, 'postgres', 'PG_VERSION'), '15\n');
    const res = await runCli(['serve'], { ...env, CRM_DATA_DIR: dir });
    expect(res.status).to.equal(1);
    const lines = (res.stdout + res.stderr).split('\n').filter((l) => l.trim() !== '');
    expect(lines, res.stdout + res.stderr).to.have.length(1);
    const line = JSON.parse(lines[0]) as { level: string; message: string };
    expect(line.level).to.equal('error');
    expect(line.message).to.match(/created by PostgreSQL 15 but this release runs PostgreSQL \d+/);
    expect(line.message).to.contain('crm-admin db backup').and.to.contain('crm-admin db restore');
    // One sentence: a single full stop, at the end.
    expect(line.message.replace(/^start failed: /, '').match(/\.(\s|$)/g)).to.have.length(1);
    // Nothing was touched.
    expect(fs.readdirSync(path.join(dir, 'postgres'))).to.deep.equal(['PG_VERSION']);
  });

  it("a second serve on the same data directory leaves the first one's database running when it exits", async () => {
    const dir = dataDir('two-serves');
    const first = await start(dir);
    const pid = postmasterPid(dir);
    expect(alive(pid)).to.equal(true);
    const second = await start(dir);
    second.child.kill('SIGTERM');
    expect(await second.exited, second.output()).to.equal(0);
    // The very postmaster the first serve started: not stopped (and not restarted by the first one).
    expect(postmasterPid(dir)).to.equal(pid);
    expect(alive(pid)).to.equal(true);
    expect((await fetch(`${first.url}/api/health/ready`)).status).to.equal(200);
    expect(first.output()).not.to.contain('not running');

    // The first one started it: it stops it.
    first.child.kill('SIGTERM');
    expect(await first.exited, first.output()).to.equal(0);
    expect(alive(pid)).to.equal(false);
    expect(fs.existsSync(path.join(dir, 'postgres', 'postmaster.pid'))).to.equal(false);
  });
});
