import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { runCli, startServe } from '../support/cli.js';
import { testEnv } from '../support/test-env.js';

/**
 * The zero-configuration path a sysadmin takes: no DATABASE_URL, an embedded PostgreSQL in the data
 * directory, shared by the server and crm-admin, surviving kill -9 and stopping cleanly on SIGTERM.
 */
describe('crm-admin serve on the embedded database', function () {
  this.timeout(120_000);
  let dataDir: string;
  let env: Record<string, string>;

  before(() => {
    dataDir = path.join(testEnv.tmpRoot!, 'embedded-lifecycle');
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o755 });
    env = { CRM_DATA_DIR: dataDir, BCRYPT_ROUNDS: '4', LOG_LEVEL: 'info', SYNC_CRON: '0 0 1 1 *' };
  });

  after(async () => {
    // Whatever happened above, leave no postmaster behind.
    await runCli(['db', 'migrate', '--status'], env);
  });

  async function ready(url: string): Promise<number> {
    const res = await fetch(`${url}/api/health/ready`);
    return res.status;
  }

  it('starts from nothing, and the CLI works beside it on the same database', async () => {
    const serve = await startServe([], env);
    try {
      expect(await ready(serve.url)).to.equal(200);
      const created = await runCli(['users', 'create', '--username', 'lifecycle-admin', '--role', 'admin', '--json'], env);
      expect(created.status, created.stderr).to.equal(0);
      const body = JSON.parse(created.stdout);
      expect(body.user.username).to.equal('lifecycle-admin');
      expect(body.temporaryPassword).to.match(/^[A-Za-z0-9]{12,}$/);
      const again = await runCli(['users', 'create', '--username', 'LIFECYCLE-admin', '--role', 'admin'], env);
      expect(again.status).to.equal(1);
      expect(again.stderr).to.contain('už existuje');
      const seeded = await runCli(['db', 'seed', '--json'], env);
      expect(seeded.status, seeded.stderr).to.equal(0);
      expect(JSON.parse(seeded.stdout).users.map((u: { username: string }) => u.username)).to.deep.equal(['admin', 'jana', 'peter']);
    } finally {
      serve.child.kill('SIGTERM');
      expect(await serve.exited).to.equal(0);
    }
    expect(serve.output()).to.contain('shutdown complete');
  });

  it('works as a CLI alone when no server runs', async () => {
    // A data directory of its own, brought up by the CLI alone: this test does not lean on the first one's.
    const alone = { ...env, CRM_DATA_DIR: path.join(testEnv.tmpRoot!, 'embedded-cli-alone') };
    fs.mkdirSync(alone.CRM_DATA_DIR, { recursive: true, mode: 0o755 });
    const migrated = await runCli(['db', 'migrate'], alone);
    expect(migrated.status, migrated.stderr).to.equal(0);
    const res = await runCli(['users', 'create', '--username', 'offline-user', '--json'], alone);
    expect(res.status, res.stderr).to.equal(0);
    expect(JSON.parse(res.stdout).user.role).to.equal('member');
    const listed = await runCli(['users', 'list', '--json'], alone);
    expect(listed.status, listed.stderr).to.equal(0);
    expect(JSON.parse(listed.stdout).items.map((u: { username: string }) => u.username)).to.deep.equal(['offline-user']);
  });

  it('is ready again after kill -9 of the server', async () => {
    const first = await startServe([], env);
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await startServe([], env);
    try {
      expect(await ready(second.url)).to.equal(200);
    } finally {
      second.child.kill('SIGTERM');
      expect(await second.exited).to.equal(0);
    }
  });

  it('refuses to run with neither API nor sync (usage error, exit 2)', async () => {
    const res = await runCli(['serve', '--no-api', '--no-sync'], env);
    expect(res.status).to.equal(2);
  });
});
