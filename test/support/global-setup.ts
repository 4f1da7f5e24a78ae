/**
 * Starts the real services the suite talks to, once per run: a throwaway PostgreSQL (embedded, in a
 * temp directory) for every file, and the Cyrus JMAP server on loopback only for the files that need
 * it (test/support/mail-server.ts: before a file whose imports reach the mail fixtures, or at the first
 * mail user a test creates). TEST_DATABASE_URL / TEST_JMAP_SESSION_URL point the suite at servers
 * someone already runs instead. The medium tier (test/support/medium-setup.ts) shares the database
 * part and talks to an in-process JMAP fake instead of Cyrus.
 *
 * Cyrus and its SMTP relay are shared by every run on the machine. A run that started using them holds
 * a lease on them (scripts/jmap/lib.sh, "Leases") and gives it back in the teardown; the server is stopped
 * then only if a test run started it (nothing was running before) and no other run still uses it. A
 * server started by hand keeps running, and so does everything when TEST_KEEP_JMAP=1.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context } from 'mocha';
import { QueryTypes, Sequelize } from 'sequelize';
import { EmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { migrateUp } from '../../src/db/migrator.js';
import { testEnv } from './test-env.js';
import { cyrusLeaseMarker, ensureCyrus, needsCyrus } from './mail-server.js';
import { HANDOVER, databaseUrlFor, ownWorkerEnvironment, templateDatabase, workerDatabasePrefix } from './worker-environment.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
let embedded: EmbeddedPostgres | undefined;
let tmpRoot: string | undefined;

const keepJmap = () => process.env.TEST_KEEP_JMAP === '1';

export async function mochaGlobalSetup(): Promise<void> {
  await setupRunDatabase();
  if (process.env.TEST_JMAP_SESSION_URL) {
    testEnv.jmapSessionUrl = process.env.TEST_JMAP_SESSION_URL;
    // Someone else's server: never started or stopped by this run (mail-server.ts).
    process.env.CRM_TEST_EXTERNAL_JMAP = '1';
  } else {
    // Known before Cyrus runs, so every app context of the run names it; started when a file needs it.
    testEnv.jmapSessionUrl = `http://127.0.0.1:${process.env.JMAP_HTTP_PORT ?? 18080}/.well-known/jmap`;
  }
  process.env.TEST_JMAP_SESSION_URL = testEnv.jmapSessionUrl;
}

/** The start of the name of a process's scratch directory in /tmp (its run's tmpRoot): `crm-test-<pid>-`. */
export const scratchDirPrefix = (pid: number | string): string => `crm-test-${pid}-`;

/** The run's PostgreSQL, migrated, and the template every worker's database is cloned from. */
export async function setupRunDatabase(): Promise<void> {
  // Not a mkdtemp (mode 700): the postgres OS user must be able to reach the data directory.
  tmpRoot = path.join('/tmp', `${scratchDirPrefix(process.pid)}${Date.now()}`);
  fs.mkdirSync(tmpRoot, { recursive: true, mode: 0o755 });
  fs.chmodSync(tmpRoot, 0o755);
  testEnv.tmpRoot = tmpRoot;

  if (process.env.TEST_DATABASE_URL) {
    testEnv.databaseUrl = process.env.TEST_DATABASE_URL;
  } else {
    // On loopback TCP, not the socket a service's embedded server listens on: tests put proxies and
    // PgBouncer in front of this server (test/support/freezable-proxy.ts, pgbouncer.ts).
    embedded = new EmbeddedPostgres(path.join(tmpRoot, 'pg'), undefined, undefined, 'loopback');
    // As the superuser: the suite makes scratch databases and watches other sessions. The app role of
    // the embedded database (ADR 0121) is tested where a test starts a data directory of its own.
    testEnv.databaseUrl = (await embedded.start()).superuserUrl;
    // A throwaway server: no fsync (nor full-page images, which only protect against torn pages after an
    // OS crash). A postmaster killed by a test still loses nothing, as the writes are in the OS's page
    // cache; only an OS crash would, and the run is gone then anyway. Commits stay synchronous. The
    // data directories tests start to test the embedded database keep fsync on, as in production (ADR 0128).
    await withServer(testEnv.databaseUrl, async (server) => {
      await server.query('ALTER SYSTEM SET fsync = off');
      await server.query('ALTER SYSTEM SET full_page_writes = off');
      await server.query('SELECT pg_reload_conf()');
    });
  }
  process.env[HANDOVER.runId] = String(process.pid);
  // crm-admin commands refuse a database with pending migrations (src/db/schema-gate.ts): the suite's
  // shared database is current before any file runs, whichever runs first. A plain Sequelize: the
  // models stay bound to the harness's own instance.
  const migrating = new Sequelize(testEnv.databaseUrl, { logging: false });
  try {
    await migrateUp(migrating);
  } finally {
    await migrating.close();
  }
  // The template of every fresh database (the workers' own and freshDatabase's), taken once migrated,
  // from the maintenance database: PostgreSQL clones only a database nobody is connected to.
  const current = new URL(testEnv.databaseUrl).pathname.slice(1);
  await withServer(databaseUrlFor(testEnv.databaseUrl, 'postgres'), (server) => server.query(`CREATE DATABASE ${templateDatabase()} TEMPLATE ${current}`));
  process.env[HANDOVER.databaseUrl] = testEnv.databaseUrl;
  process.env[HANDOVER.tmpRoot] = tmpRoot;
}

/**
 * In parallel mode each worker first takes its own database and data directory (worker-environment.ts).
 * Root hooks run once per file there (once for all files in a serial run): Cyrus is started before the
 * file if the file needs it.
 */
export const mochaHooks = {
  async beforeAll(this: Context): Promise<void> {
    await ownWorkerEnvironment();
    const root = this.test?.parent;
    const files = [...(root?.suites ?? []), ...(root?.tests ?? [])].map((s) => s.file).filter((f): f is string => typeof f === 'string');
    if (files.some((file) => needsCyrus(file))) {
      // The first start may install Debian's packages: minutes, not the hooks' 30 s.
      this.timeout(600_000);
      await ensureCyrus();
    }
  },
};

/** A short-lived connection to the suite's server (the shared database's own session is left alone). */
async function withServer<T>(url: string, work: (server: Sequelize) => Promise<T>): Promise<T> {
  const server = new Sequelize(url, { logging: false });
  try {
    return await work(server);
  } finally {
    await server.close();
  }
}

export async function mochaGlobalTeardown(): Promise<void> {
  // A worker (or this process) that started using Cyrus left the marker: the lease is this run's.
  if (tmpRoot && fs.existsSync(cyrusLeaseMarker(tmpRoot))) releaseJmap();
  await teardownRunDatabase();
}

export async function teardownRunDatabase(): Promise<void> {
  const { closeSharedContext } = await import('./harness.js');
  await closeSharedContext();
  // A server someone else runs keeps nothing of this run; the embedded one goes away whole.
  if (!embedded && testEnv.databaseUrl) await dropRunDatabases(testEnv.databaseUrl).catch(() => {});
  await embedded?.stop().catch(() => {});
  // The S3 server is started by the first test that needs it (test/support/s3-server.ts) under this run's lease.
  const { releaseS3 } = await import('./s3-server.js');
  releaseS3(String(process.pid));
  if (tmpRoot && !process.env.TEST_KEEP_TMP) fs.rmSync(tmpRoot, { recursive: true, force: true });
}

async function dropRunDatabases(url: string): Promise<void> {
  await withServer(url, async (server) => {
    const rows = await server.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', {
      bind: [workerDatabasePrefix(String(process.pid))],
      type: QueryTypes.SELECT,
    });
    const names = [...rows.map((r) => r.datname), templateDatabase()];
    for (const name of names) await server.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
}

/**
 * Gives the lease back; stop.sh stops Cyrus and the relay only when a test run started them and no
 * other run holds a lease. With TEST_KEEP_JMAP=1 the lease is just left to lapse (a dead pid does not
 * count), so this run never stops anything.
 */
function releaseJmap(): void {
  if (keepJmap()) return;
  try {
    execFileSync('bash', [path.join(repoRoot, 'scripts/jmap/stop.sh'), '--release', String(process.pid)], {
      stdio: ['ignore', 'inherit', 'inherit'],
      timeout: 60_000,
    });
  } catch (err) {
    // A server that would not stop is worth a line, not a failed run.
    console.error(`[global teardown] stopping the JMAP server failed: ${(err as Error).message}`);
  }
}
