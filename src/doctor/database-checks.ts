/** Checks that ask the database: reachable, unaccent, connections left, its role, workers, clock. */
import type { AppConfig } from '../config/config.js';
import type { DoctorRepository } from './doctor-repository.js';
import { fail, ok, warn, type CheckResult } from './doctor-types.js';

/**
 * `poolMax`: DATABASE_POOL_MAX; one more `serve` opens up to that many plus its LISTEN connection, so
 * fewer slots left than this is worth a warning.
 */
export async function checkDatabase(db: DoctorRepository, poolMax: number): Promise<CheckResult[]> {
  const oneMoreServe = poolMax + 1;
  const facts = await db.serverFacts();
  const results: CheckResult[] = [ok('database', `PostgreSQL ${facts.version} answers`)];
  if (facts.unaccent.installed) results.push(ok('unaccent', 'the unaccent extension is installed'));
  else if (facts.unaccent.available) results.push(warn('unaccent', 'unaccent is available but not installed yet', 'run crm-admin db migrate (it creates the extension)'));
  else results.push(fail('unaccent', 'the unaccent extension is not available on the server', "install PostgreSQL's contrib package (postgresql-contrib) on the database server"));

  const { used, max, reserved } = facts.connections;
  const left = max - reserved - used;
  const line = `${used} of ${max} connections used (${reserved} reserved for superusers), ${left} left`;
  if (left <= 0) results.push(fail('connections', line, 'raise max_connections or lower DATABASE_POOL_MAX / the number of instances (docs/scale-out.md)'));
  else if (left < oneMoreServe)
    results.push(warn('connections', line, `one more serve opens up to ${oneMoreServe}: raise max_connections before adding instances (docs/scale-out.md)`));
  else results.push(ok('connections', line));

  // A superuser takes the slots reserved for the administrator and may change anything on the server.
  if (facts.role.superuser) {
    results.push(
      warn('database-role', `connected as ${facts.role.name}, a superuser`, 'connect as a role of its own that owns the database (docs/operations.md, "The database role")'),
    );
  } else if (facts.role.schemaChanger) {
    // The service's role needs rows only; one that may create tables can be turned against the schema.
    results.push(
      warn(
        'database-role',
        `connected as ${facts.role.name}, which may change the schema (CREATE in the database or its schema)`,
        'serve as a role with rows only and migrate as the owner: set DATABASE_OWNER_URL (docs/operations.md, "The database role")',
      ),
    );
  } else results.push(ok('database-role', `connected as ${facts.role.name}: rows only, not a superuser`));

  // The database's clock decides leases and retention, this host's decides tokens: they must agree.
  const skewMs = Math.abs(facts.now.getTime() + facts.roundTripMs / 2 - Date.now());
  const skew = `database and local clocks differ by ${(skewMs / 1000).toFixed(1)} s`;
  if (skewMs > 60_000) results.push(fail('clock', skew, 'run NTP (systemd-timesyncd or chrony) on both hosts'));
  else if (skewMs > 5_000) results.push(warn('clock', skew, 'run NTP (systemd-timesyncd or chrony) on both hosts'));
  else results.push(ok('clock', skew));
  return results;
}

export async function checkMigrations(db: DoctorRepository): Promise<CheckResult> {
  const { applied, pending, unknown } = await db.migrations();
  if (unknown.length > 0) {
    return fail(
      'migrations',
      `the database has migrations this release does not know: ${unknown.join(', ')}`,
      'run the release that migrated this database (or a newer one); do not downgrade over a migrated database',
    );
  }
  if (pending.length > 0) return warn('migrations', `${pending.length} pending: ${pending.join(', ')}`, 'run crm-admin db migrate (serve also applies them at start)');
  return ok('migrations', `schema current (${applied} migrations applied)`);
}

/** Workers are alive when some lease was taken recently; a whole interval and more without one is a dead cluster. */
export async function checkWorkers(db: DoctorRepository, config: AppConfig): Promise<CheckResult> {
  const activity = await db.leaseActivity();
  if (activity === null) return warn('workers', 'the sync tables do not exist yet', 'run crm-admin db migrate');
  if (activity.syncableAccounts === 0) return ok('workers', 'no email accounts to sync yet');
  // With SYNC_CRON the firing times are the operator's: a day between runs may be intended.
  const limitSeconds = config.syncCron ? 26 * 3600 : Math.max(3 * config.syncIntervalSeconds, 300);
  const last = activity.lastActivitySeconds;
  const expired = activity.expiredLeases > 0 ? `; ${activity.expiredLeases} expired lease(s)` : '';
  const line = `${activity.syncableAccounts} account(s); last lease ${last === null ? 'never taken' : `${Math.round(last)} s ago`}${expired}`;
  if (last === null || last > limitSeconds) return fail('workers', line, 'no sync worker is running: start crm-admin serve (or serve --no-api) and check its log');
  if (activity.expiredLeases > 0) return warn('workers', line, 'a worker stopped mid-run; see crm-admin sync status (another takes the account over at its next turn)');
  return ok('workers', line);
}
