/** The database facts `crm-admin doctor` reads: all read-only, none needs the schema to be current. */
import type { Sequelize } from 'sequelize';
import { migrationStatus } from '../db/migration-check.js';
import { Sql } from '../db/sql.js';

interface ServerFacts {
  version: string;
  /** unaccent installed in this database; available = the server has its files (contrib). */
  unaccent: { installed: boolean; available: boolean };
  /** Client connections now, max_connections, and the slots only superusers (and pg_use_reserved_connections, 16+) may take. */
  connections: { used: number; max: number; reserved: number };
  /**
   * The role this process connected as, whether it is a superuser (the app should not be: ADR 0121),
   * and whether it may change the schema: create in the database or its public schema (ADR 0171).
   */
  role: { name: string; superuser: boolean; schemaChanger: boolean };
  /** The database's clock, and how long the query took (half of it is the uncertainty). */
  now: Date;
  roundTripMs: number;
}

interface LeaseActivity {
  /** Accounts the sync serves (active, with an active member). */
  syncableAccounts: number;
  /** Seconds since a lease was last taken, or 0 while one is held; null when never. */
  lastActivitySeconds: number | null;
  expiredLeases: number;
}

export class DoctorRepository {
  private readonly sql: Sql;

  constructor(private readonly sequelize: Sequelize) {
    this.sql = new Sql(sequelize);
  }

  async serverFacts(): Promise<ServerFacts> {
    const started = Date.now();
    const row = await this.sql.one<{
      now: Date;
      version: string;
      installed: boolean;
      available: boolean;
      used: number;
      max: string;
      reserved: string;
      role: string;
      superuser: boolean;
      schema_changer: boolean;
    }>(
      `SELECT now() AS now, current_setting('server_version') AS version,
              EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'unaccent') AS installed,
              EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'unaccent') AS available,
              (SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'client backend') AS used,
              current_setting('max_connections') AS max,
              (current_setting('superuser_reserved_connections')::int + coalesce(current_setting('reserved_connections', true)::int, 0))::text AS reserved,
              current_user AS role, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS superuser,
              has_database_privilege(current_database(), 'CREATE') OR has_schema_privilege('public', 'CREATE') AS schema_changer`,
    );
    const roundTripMs = Date.now() - started;
    if (!row) throw new Error('the database answered no row');
    return {
      version: row.version,
      unaccent: { installed: row.installed, available: row.available },
      connections: { used: row.used, max: Number(row.max), reserved: Number(row.reserved) },
      role: { name: row.role, superuser: row.superuser, schemaChanger: row.schema_changer },
      now: row.now,
      roundTripMs,
    };
  }

  migrations() {
    return migrationStatus(this.sequelize);
  }

  /** Null when the sync's tables do not exist yet (a database never migrated). */
  async leaseActivity(): Promise<LeaseActivity | null> {
    const exists = await this.sql.one<{ found: boolean }>("SELECT to_regclass('mail_sync_states') IS NOT NULL AND to_regclass('email_account_members') IS NOT NULL AS found");
    if (!exists?.found) return null;
    const row = await this.sql.one<{ accounts: number; last: number | null; expired: number }>(
      `SELECT (SELECT count(*)::int FROM email_accounts a WHERE a.is_active AND EXISTS (
                 SELECT 1 FROM email_account_members m JOIN users u ON u.id = m.user_id
                  WHERE m.email_account_id = a.id AND u.disabled_at IS NULL)) AS accounts,
              extract(epoch FROM now() - max(CASE WHEN s.locked_until > now() THEN now() ELSE s.last_attempt_at END))::float8 AS last,
              count(*) FILTER (WHERE s.locked_by IS NOT NULL AND s.locked_until <= now())::int AS expired
         FROM mail_sync_states s`,
    );
    return { syncableAccounts: row?.accounts ?? 0, lastActivitySeconds: row?.last ?? null, expiredLeases: row?.expired ?? 0 };
  }
}
