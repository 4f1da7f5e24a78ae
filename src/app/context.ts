import { AppConfig } from '../config/config.js';
import { openDatabase, type Database } from '../db/database.js';
import { schemaIsCurrent } from '../db/migration-check.js';
import { requireCurrentSchema } from '../db/schema-gate.js';
import type { Logger } from '../logging/logger.js';
import type { SyncRole } from '../sync/lease-holder.js';
import { buildServices, type Services } from './services.js';
import { loadEveryLazyModule } from './wiring/lazy-module.js';

export interface AppContext {
  config: AppConfig;
  logger: Logger;
  db: Database;
  services: Services;
  close(options?: { stopEmbedded?: boolean }): Promise<void>;
}

export interface ContextOptions {
  config?: AppConfig;
  logger?: Logger;
  /**
   * What to do about pending migrations: apply them, logged and audited (serve: `migrate: true`, the
   * default), refuse to go on (`'require-current'`: every crm-admin command but `db migrate` and
   * `db restore`), or leave the schema as it is (`false`).
   */
  migrate?: boolean | 'require-current';
  poolMax?: number;
  /** The long-running service (serve): it adopts an orphaned embedded PostgreSQL as its own. */
  service?: boolean;
  /** Connect as the schema's owner throughout (`db migrate`, `db restore`; ADR 0171). */
  asOwner?: boolean;
  /** An already open database to share (tests run several configurations against one pool). */
  db?: Database;
  /**
   * Whether a requested sync (a new account, new credentials) also runs in this process (default);
   * crm-admin commands only mark it requested for the serving instances (SyncService.requestSync).
   */
  runRequestedSyncs?: boolean;
  /** What kind of process this is, in the names of the sync leases it takes (sync status shows it). */
  syncRole?: SyncRole;
}

export async function createAppContext(options: ContextOptions = {}): Promise<AppContext> {
  const config = options.config ?? AppConfig.fromEnv();
  const logger = options.logger ?? (await import('../logging/logger.js')).createLogger(config.logLevel, { syslogPrefix: config.logSyslogPrefix });
  const shared = options.db !== undefined;
  const db = options.db ?? (await openDatabase(config, logger, { poolMax: options.poolMax, service: options.service, asOwner: options.asOwner }));
  let services: Services;
  try {
    if (!shared && options.migrate === 'require-current') await requireCurrentSchema(db.sequelize);
    services = buildServices(config, db.sequelize, logger, { runRequestedSyncs: options.runRequestedSyncs, syncRole: options.syncRole });
    // The service loads every area now (a one-shot command loads only the parts it builds, ADR 0124).
    if (options.service) loadEveryLazyModule();
    if (!shared) await prepareSchema(options, db, services, logger);
  } catch (err) {
    if (!shared) await db.close().catch(() => {});
    throw err;
  }
  return { config, logger, db, services, close: async (o) => (shared ? undefined : db.close(o)) };
}

/** Applies pending migrations (logged and audited) when asked to, then re-seals old mail passwords. */
async function prepareSchema(options: ContextOptions, db: Database, services: Services, logger: Logger): Promise<void> {
  // The migrator (umzug) loads only when there is something to apply.
  if (options.migrate !== false && options.migrate !== 'require-current' && !(await schemaIsCurrent(db.sequelize))) {
    const { SchemaMigrationService } = await import('../maintenance/schema-migration-service.js');
    const { withSchemaOwner } = await import('../db/schema-owner.js');
    await withSchemaOwner(db, (owner) => new SchemaMigrationService(owner, services.audit, logger).applyPending({ actor: options.service ? 'serve' : 'startup' }));
  }
  // Needs the encryption key, so it follows the migrations here rather than being one of them. Not
  // a schema change: crm-admin commands on a current schema do it as well.
  if (options.migrate !== false) await services.passwordReseal.run();
}
