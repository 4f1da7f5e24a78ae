/**
 * `crm-admin doctor`: the checks a sysadmin runs first, as a service the command only renders. Each
 * check answers ok / warn / fail with a one-line fix; one that throws is a fail, never a crash, and a
 * database that cannot be reached still lets the host's checks run. Changes nothing, migrates nothing,
 * creates nothing: a missing data directory is a failure, never a new installation (issue 52, finding 9).
 */
import fs from 'node:fs';
import path from 'node:path';
import { AppConfig, ConfigError } from '../config/config.js';
import type { DoctorRepository } from './doctor-repository.js';
import { checkDatabase, checkMigrations, checkWorkers } from './database-checks.js';
import { fail, ok, report, type CheckResult, type DoctorReport } from './doctor-types.js';
import { checkDataDir, checkMailServer, checkProxy, checkSecretFiles } from './host-checks.js';
import { checkStorage } from './storage-checks.js';
import { checkJobs, type CheckedJob } from './job-checks.js';

export type * from './doctor-types.js';

export interface DoctorDeps {
  env: NodeJS.ProcessEnv;
  /** Opens the database without migrating it (the command's app context); throws when unreachable. */
  openDatabase: (config: AppConfig) => Promise<DoctorRepository>;
  /** The background jobs of serve with their backlogs (src/app/background-jobs.ts), on the database opened. */
  jobs?: () => readonly CheckedJob[];
}

export class DoctorService {
  constructor(private readonly deps: DoctorDeps) {}

  async run(): Promise<DoctorReport> {
    let config: AppConfig;
    try {
      config = AppConfig.fromEnv(this.deps.env, { createDevSecrets: false });
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      return report([fail('configuration', err.problems.join('; '), 'fix the variables named above (docs/configuration.md), then run doctor again')]);
    }
    const checks: CheckResult[] = [ok('configuration', `valid (NODE_ENV=${config.env}, ${config.databaseUrl ? 'DATABASE_URL' : 'embedded PostgreSQL'})`)];
    let db: DoctorRepository | undefined;
    const noEmbedded = missingEmbeddedDatabase(config);
    try {
      // Opening the embedded database of a data directory that has none would initialise a new one.
      if (noEmbedded) checks.push(fail('database', noEmbedded, NEW_INSTALLATION_FIX));
      else db = await this.deps.openDatabase(config);
    } catch (err) {
      checks.push(
        fail(
          'database',
          `not reachable: ${firstLine(err)}`,
          config.databaseUrl ? 'start PostgreSQL or correct DATABASE_URL (host, port, user, password)' : `check the embedded PostgreSQL in ${config.dataDir}`,
        ),
      );
    }
    if (db) {
      const repository = db;
      checks.push(...(await guarded('database', () => checkDatabase(repository, config.databasePoolMax))));
      checks.push(...(await guarded('migrations', async () => [await checkMigrations(repository)])));
    }
    // The jobs' tables are those of the current schema: their backlogs are read only on it.
    const schemaCurrent = checks.some((c) => c.name === 'migrations' && c.status === 'ok');
    checks.push(await checkMailServer(config));
    checks.push(...(await guarded('data-dir', () => checkDataDir(config))));
    checks.push(...(await guarded('storage', async () => [await checkStorage(config)])));
    checks.push(...(await guarded('secrets', async () => [checkSecretFiles(config, this.deps.env)])));
    checks.push(checkProxy(config));
    if (db) {
      const repository = db;
      checks.push(...(await guarded('workers', async () => [await checkWorkers(repository, config)])));
      const jobs = this.deps.jobs;
      if (jobs && schemaCurrent) checks.push(...(await guarded('jobs', () => checkJobs(jobs()))));
    }
    return report(checks);
  }
}

const NEW_INSTALLATION_FIX = 'point CRM_DATA_DIR (or DATABASE_URL) at the installation; a new one is made by its first `crm-admin serve`, never by doctor';

/** Why there is no embedded database to open (doctor creates none), or null when there is one or DATABASE_URL is used. */
function missingEmbeddedDatabase(config: AppConfig): string | null {
  if (config.databaseUrl) return null;
  if (!fs.existsSync(config.dataDir)) return `no data directory at ${config.dataDir}`;
  if (!fs.existsSync(path.join(config.dataDir, 'postgres', 'PG_VERSION'))) return `no embedded PostgreSQL in ${path.join(config.dataDir, 'postgres')}`;
  return null;
}

async function guarded(name: string, check: () => Promise<CheckResult[]>): Promise<CheckResult[]> {
  try {
    return await check();
  } catch (err) {
    return [fail(name, `could not be checked: ${firstLine(err)}`, 'see the message; run doctor again with CLI_LOG_LEVEL=debug')];
  }
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0];
}
