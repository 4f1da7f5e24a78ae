/**
 * `crm-admin doctor`: the checks a sysadmin runs first, as a service the command only renders. Each
 * check answers ok / warn / fail with a one-line fix; one that throws is a fail, never a crash, and a
 * database that cannot be reached still lets the host's checks run. Changes nothing, migrates nothing.
 */
import { AppConfig, ConfigError } from '../config/config.js';
import type { DoctorRepository } from './doctor-repository.js';
import { checkDatabase, checkMigrations, checkWorkers } from './database-checks.js';
import { fail, ok, report, type CheckResult, type DoctorReport } from './doctor-types.js';
import { checkDataDir, checkMailServer, checkProxy, checkSecretFiles } from './host-checks.js';

export type * from './doctor-types.js';

export interface DoctorDeps {
  env: NodeJS.ProcessEnv;
  /** Opens the database without migrating it (the command's app context); throws when unreachable. */
  openDatabase: (config: AppConfig) => Promise<DoctorRepository>;
}

export class DoctorService {
  constructor(private readonly deps: DoctorDeps) {}

  async run(): Promise<DoctorReport> {
    let config: AppConfig;
    try {
      config = AppConfig.fromEnv(this.deps.env);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      return report([fail('configuration', err.problems.join('; '), 'fix the variables named above (docs/configuration.md), then run doctor again')]);
    }
    const checks: CheckResult[] = [ok('configuration', `valid (NODE_ENV=${config.env}, ${config.databaseUrl ? 'DATABASE_URL' : 'embedded PostgreSQL'})`)];
    let db: DoctorRepository | undefined;
    try {
      db = await this.deps.openDatabase(config);
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
    checks.push(await checkMailServer(config));
    checks.push(...(await guarded('data-dir', () => checkDataDir(config))));
    checks.push(...(await guarded('secrets', async () => [checkSecretFiles(config, this.deps.env)])));
    checks.push(checkProxy(config));
    if (db) {
      const repository = db;
      checks.push(...(await guarded('workers', async () => [await checkWorkers(repository, config)])));
    }
    return report(checks);
  }
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
