import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { EmbeddedPostgres } from '../../src/db/embedded-postgres.js';

const SECRETS = ['JWT_ACCESS_SECRET', 'JWT_REFRESH_SECRET', 'CRM_ENCRYPTION_KEY', 'CRM_ENCRYPTION_OLD_KEYS', 'BACKUP_SIGNING_KEY', 'DATABASE_URL'];

/**
 * Issue 52, finding 8: pg_ctl inherited the whole environment, so secrets set as variables ended up
 * in the postgres OS user's /proc/<postmaster pid>/environ. The server starts with a minimal one.
 */
describe('embedded PostgreSQL: the server runs with a minimal environment', function () {
  this.timeout(180_000);
  let root: string;
  const saved: Record<string, string | undefined> = {};
  const marker = `leak-${process.pid}-${Date.now()}`;

  before(() => {
    // Not a mkdtemp (mode 700): the postgres OS user must reach the data directory.
    root = path.join('/tmp', `crm-pgenv-${process.pid}-${Date.now()}`);
    fs.mkdirSync(root, { mode: 0o755 });
    fs.chmodSync(root, 0o755);
    for (const name of [...SECRETS, 'CRM_TEST_UNRELATED']) {
      saved[name] = process.env[name];
      process.env[name] = `${name}-${marker}`;
    }
  });

  after(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("keeps the service's secrets (and anything else of its environment) out of the postmaster's environ", async () => {
    const pg = new EmbeddedPostgres(path.join(root, 'data'));
    const handle = await pg.start();
    try {
      const pid = Number(fs.readFileSync(path.join(root, 'data', 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
      expect(pid).to.be.greaterThan(1);
      const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
      const names = environ.map((entry) => entry.split('=')[0]);
      expect(names, 'the postmaster runs with some environment (the test can fail)').to.include('PATH');
      for (const name of [...SECRETS, 'CRM_TEST_UNRELATED']) expect(names, name).to.not.include(name);
      expect(environ.join('\n')).to.not.contain(marker);
      // It still works: the service connects as before.
      const { default: pgClient } = await import('pg');
      const client = new pgClient.Client({ connectionString: handle.url });
      await client.connect();
      expect((await client.query('SELECT 1 AS one')).rows[0].one).to.equal(1);
      await client.end();
    } finally {
      await handle.stop();
    }
  });
});
