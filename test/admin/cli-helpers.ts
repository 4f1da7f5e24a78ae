import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import path from 'node:path';
import { expect } from 'chai';
import { Sequelize } from 'sequelize';
import { grantDataAccess } from '../../src/db/data-access-grants.js';
import { migrateUp } from '../../src/db/migrator.js';
import type { CliResult } from '../support/cli.js';
import { runCliInProcess } from '../support/cli-in-process.js';
import { baseTestEnv, testContext } from '../support/harness.js';
import { requireDatabaseUrl } from '../support/test-env.js';
import { templateDatabase } from '../support/worker-environment.js';
import { pdfFixture } from '../timesheets/fixtures.js';

/**
 * The environment of an admin on the server: the suite's database and data directory, and the same
 * secrets as the test app, so that email accounts attached by the CLI decrypt in the app.
 */
export function cliEnv(overrides: Record<string, string> = {}): Record<string, string> {
  // Without NODE_ENV, as on a server: NODE_ENV=test would put oclif into its TypeScript development mode.
  const { NODE_ENV: _nodeEnv, ...env } = baseTestEnv();
  return { ...env, ...overrides };
}

/**
 * crm-admin as an admin runs it, in the test process where it can (test/support/cli-in-process.ts:
 * the harness's database, a command not about the process), else spawned; TEST_CLI=process spawns
 * every call. A test about the process itself uses runCli (test/support/cli.ts).
 */
export function cli(args: string[], input?: string, env = cliEnv()): Promise<CliResult> {
  return runCliInProcess(args, env, input);
}

/** Runs a --json command that must succeed and returns its parsed output. */
// Tests read the output's fields directly; callers that care name T.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function cliJson<T = any>(args: string[], input?: string, env = cliEnv()): Promise<T> {
  const res = await runCliInProcess([...args, '--json'], env, input);
  expect(res.status, `crm-admin ${args.join(' ')}\n${res.stderr}`).to.equal(0);
  return JSON.parse(res.stdout) as T;
}

/** A stored timesheet (row and PDF file) of a period, through the real service. */
export async function storeTimesheet(userId: string, year: number, month: number, size?: number) {
  const ctx = await testContext();
  const stored = await ctx.services.timesheets.receive(Readable.from([pdfFixture(size)]));
  const timesheet = await ctx.services.timesheets.upload(
    { userId, role: 'member' },
    { file: { ...stored, originalName: `vykaz-${year}-${month}.pdf` }, year, month },
    { actor: 'test' },
  );
  return { timesheet, file: path.join(ctx.config.timesheetDir, timesheet.filePath) };
}

/**
 * A database of its own on the suite's PostgreSQL server, for what is a property of a whole database
 * ("the last admin", "every account"): the shared one always holds other tests' rows.
 */
export async function freshDatabase(prefix: string, options: { migrated?: boolean; appRole?: boolean } = {}): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  const name = `${prefix}_${crypto.randomBytes(4).toString('hex')}`;
  const ctx = await testContext();
  // As after `crm-admin db migrate`: commands other than serve and db migrate refuse a schema with
  // pending migrations. A clone of the run's migrated template (test/support/worker-environment.ts),
  // not every migration again; `migrated: false` keeps it empty (a restore target).
  // A database of the app's own role (appRole) is migrated by that role, so that it owns every table.
  const migrated = options.migrated ?? true;
  const template = migrated && !options.appRole ? ` TEMPLATE ${templateDatabase()}` : '';
  await ctx.db.sequelize.query(`CREATE DATABASE ${name}${template}`);
  const url = new URL(requireDatabaseUrl());
  url.pathname = `/${name}`;
  // `appRole`: as an external database set up by its DBA (docs/operations.md, "The database role"):
  // an owner role (no superuser) that owns the database, its schema and the extensions' use, and the
  // service's role, which gets rows only (ADR 0171): DATABASE_URL is the service's, DATABASE_OWNER_URL the owner's.
  const role = options.appRole ? `${name}_app` : undefined;
  const ownerRole = options.appRole ? `${name}_owner` : undefined;
  let ownerUrl: URL | undefined;
  if (role && ownerRole) {
    const password = crypto.randomBytes(18).toString('base64url');
    const ownerPassword = crypto.randomBytes(18).toString('base64url');
    await ctx.db.sequelize.query(`CREATE ROLE ${ownerRole} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '${ownerPassword}'`);
    await ctx.db.sequelize.query(`CREATE ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '${password}'`);
    await ctx.db.sequelize.query(`ALTER DATABASE ${name} OWNER TO ${ownerRole}`);
    const asSuperuser = new Sequelize(url.toString(), { logging: false });
    try {
      await asSuperuser.query(
        `ALTER SCHEMA public OWNER TO ${ownerRole}; REVOKE CREATE ON SCHEMA public FROM PUBLIC; CREATE EXTENSION IF NOT EXISTS unaccent; CREATE EXTENSION IF NOT EXISTS pg_trgm`,
      );
    } finally {
      await asSuperuser.close();
    }
    ownerUrl = new URL(url);
    ownerUrl.username = ownerRole;
    ownerUrl.password = ownerPassword;
    url.username = role;
    url.password = password;
  }
  // A plain Sequelize, so the models stay bound to the harness's instance.
  if (migrated && role && ownerUrl) {
    const migrating = new Sequelize(ownerUrl.toString(), { logging: false });
    try {
      await grantDataAccess(migrating, role);
      await migrateUp(migrating);
    } finally {
      await migrating.close();
    }
  }
  return {
    env: cliEnv({ DATABASE_URL: url.toString(), ...(ownerUrl ? { DATABASE_OWNER_URL: ownerUrl.toString() } : {}), SYNC_CRON: '0 0 1 1 *' }),
    drop: async () => {
      await ctx.db.sequelize.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      if (role) await ctx.db.sequelize.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
      if (ownerRole) await ctx.db.sequelize.query(`DROP ROLE IF EXISTS ${ownerRole}`).catch(() => undefined);
    },
  };
}
