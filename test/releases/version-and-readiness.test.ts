import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { createAppContext } from '../../src/app/context.js';
import { createApp } from '../../src/app/http-app.js';
import { AppConfig } from '../../src/config/config.js';
import { createMigrator } from '../../src/db/migrator.js';
import { createLogger } from '../../src/logging/logger.js';
import { releaseVersion } from '../../src/shared/release-version.js';
import { runCli, repoRoot } from '../support/cli.js';
import { responseContract } from '../support/openapi-contract.js';
import { baseTestEnv, testApp } from '../support/harness.js';
import { scratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';

/** The newest migration this checkout ships: what a current schema reports as its version. */
function newestMigrationOnDisk(): string {
  return fs
    .readdirSync(path.join(repoRoot, 'migrations'))
    .filter((f) => /^\d{4}-.*\.ts$/.test(f))
    .map((f) => f.replace(/\.ts$/, ''))
    .sort()
    .at(-1)!;
}

describe('the release version, everywhere it is shown', function () {
  this.timeout(60_000);

  it("is package.json's semantic version, never 0.1.0 again", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    expect(releaseVersion())
      .to.equal(pkg.version)
      .and.match(/^\d+\.\d+\.\d+$/);
    expect(releaseVersion()).not.to.equal('0.1.0');
  });

  it('crm-admin --version says it', async () => {
    const res = await runCli(['--version'], {});
    expect(res.status, res.stderr).to.equal(0);
    expect(res.stdout).to.match(new RegExp(`^staff-crm/${releaseVersion().replaceAll('.', '\\.')} `));
  });

  it('GET /api/health/ready says it, with the newest applied migration as the schema', async () => {
    const res = await request(await testApp()).get('/api/health/ready');
    expect(res.status).to.equal(200);
    expect(res.body.data).to.include({ status: 'ready', version: releaseVersion(), schema: newestMigrationOnDisk() });
  });
});

describe('readiness while a migration is pending', function () {
  this.timeout(120_000);
  let database: ScratchDatabase;

  before(async () => {
    database = await scratchDatabase('crm_ready_pending');
    await createMigrator(database.db).up();
  });
  after(() => database?.drop());

  /** The real app (health routes and error handler) on the scratch database, responses checked against the document. */
  async function appOnScratch() {
    const config = AppConfig.fromEnv({ ...baseTestEnv(), DATABASE_URL: database.url });
    const ctx = await createAppContext({ config, logger: createLogger('error', { silent: true }), db: { sequelize: database.db, close: async () => {} } });
    return createApp(ctx, { observers: [responseContract(config.metricsPath).middleware()] });
  }

  it('answers 503 until the pending migration is applied, then 200 with the schema', async () => {
    const reverted = (await createMigrator(database.db).down()).map((m) => m.name);
    expect(reverted).to.deep.equal([newestMigrationOnDisk()]);
    const app = await appOnScratch();
    const pending = await request(app).get('/api/health/ready');
    expect(pending.status).to.equal(503);
    expect(pending.body.error).to.include({ code: 'service_unavailable', message: 'Schéma databázy nie je aktuálna' });
    // Liveness is not readiness: the process is fine.
    expect((await request(app).get('/api/health')).status).to.equal(200);

    await createMigrator(database.db).up();
    const ready = await request(app).get('/api/health/ready');
    expect(ready.status).to.equal(200);
    expect(ready.body.data).to.include({ version: releaseVersion(), schema: newestMigrationOnDisk() });
  });
});
