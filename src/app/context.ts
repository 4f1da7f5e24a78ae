import { AppConfig } from '../config/config.js';
import { openDatabase, type Database } from '../db/database.js';
import { schemaIsCurrent } from '../db/migration-check.js';
import { createLogger, type Logger } from '../logging/logger.js';
import type { SyncRole } from '../sync/lease-holder.js';
import { buildServices, type Services } from './services.js';

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
  /** Apply pending migrations before anything uses the schema (serve does; CLI commands do too). */
  migrate?: boolean;
  poolMax?: number;
  /** The long-running service (serve): it adopts an orphaned embedded PostgreSQL as its own. */
  service?: boolean;
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
  const logger = options.logger ?? createLogger(config.logLevel, { syslogPrefix: config.logSyslogPrefix });
  const shared = options.db !== undefined;
  const db = options.db ?? (await openDatabase(config, logger, { poolMax: options.poolMax, service: options.service }));
  try {
    if (options.migrate !== false && !shared) {
      // The migrator (umzug) loads only when there is something to apply.
      const applied = (await schemaIsCurrent(db.sequelize)) ? [] : await (await import('../db/migrator.js')).migrateUp(db.sequelize);
      if (applied.length > 0) logger.info('migrations applied', { migrations: applied });
    }
  } catch (err) {
    if (!shared) await db.close().catch(() => {});
    throw err;
  }
  const services = buildServices(config, db.sequelize, logger, { runRequestedSyncs: options.runRequestedSyncs, syncRole: options.syncRole });
  // Needs the encryption key, so it follows the migrations here rather than being one of them.
  if (options.migrate !== false && !shared) await services.passwordReseal.run();
  return { config, logger, db, services, close: async (o) => (shared ? undefined : db.close(o)) };
}
