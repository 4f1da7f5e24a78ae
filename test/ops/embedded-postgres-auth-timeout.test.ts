import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { EmbeddedPostgres } from '../../src/db/embedded-postgres.js';

/**
 * Issue 52, finding 6: any local process could hold the embedded PostgreSQL's connection slots at the
 * password prompt, each for PostgreSQL's default authentication_timeout of a minute. The server is
 * started with 10 s (on the command line, so data directories made by older releases get it too).
 */
describe('embedded PostgreSQL: a short authentication_timeout', function () {
  this.timeout(180_000);
  let root: string;

  before(() => {
    // Not a mkdtemp (mode 700): the postgres OS user must reach the data directory.
    root = path.join('/tmp', `crm-pgauth-${process.pid}-${Date.now()}`);
    fs.mkdirSync(root, { mode: 0o755 });
    fs.chmodSync(root, 0o755);
  });

  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('runs with authentication_timeout = 10 s, set by the service, as the app role reads it', async () => {
    const server = new EmbeddedPostgres(path.join(root, 'data'));
    const handle = await server.start();
    try {
      const client = new pg.Client({ connectionString: handle.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ setting: string; unit: string; source: string }>(
          "SELECT setting, unit, source FROM pg_settings WHERE name = 'authentication_timeout'",
        );
        expect(rows).to.deep.equal([{ setting: '10', unit: 's', source: 'command line' }]);
      } finally {
        await client.end();
      }
    } finally {
      await handle.stop();
    }
  });
});
