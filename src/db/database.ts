import pg from 'pg';
import { Sequelize } from 'sequelize';
import type { AppConfig } from '../config/config.js';
import type { Logger } from '../logging/logger.js';
import { EmbeddedPostgres, type EmbeddedPostgresHandle } from './embedded-postgres.js';
import { initModels } from '../models/index.js';

export interface Database {
  sequelize: Sequelize;
  /** Set when the database is the embedded one in the data directory. */
  embedded?: EmbeddedPostgresHandle;
  close(options?: { stopEmbedded?: boolean }): Promise<void>;
}

/**
 * pg with one change: every client listens for 'error' from the moment it exists. A connection the
 * server ends (a restart, an administrator's terminate) while Sequelize has not yet attached its own
 * listener, or no longer has one, emitted an unhandled 'error' that ended the process (seen in
 * test/hardening/faults-postgres.test.ts). The client is marked invalid, so the pool discards it.
 */
class ListeningClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => {
      (this as unknown as { _invalid: boolean })._invalid = true;
    });
  }
}
const pgWithErrorListeners = { ...pg, Client: ListeningClient };

/**
 * `databaseVersion` (x.y.z), when known: Sequelize otherwise opens a connection of its own only to read
 * the server's version, closes it and opens the pool's first one (two log-ins, SCRAM included, for a
 * one-query command). It compares the version only with 9.x releases (features every supported
 * PostgreSQL has), so the major version is enough.
 */
export function createSequelize(url: string, poolMax = 10, databaseVersion?: string): Sequelize {
  const sequelize = new Sequelize(url, {
    dialect: 'postgres',
    ...(databaseVersion ? { databaseVersion } : {}),
    logging: false,
    // Timestamps in UTC regardless of the host's zone: audit records are compared across machines.
    timezone: '+00:00',
    pool: { max: poolMax, min: 0, idle: 10_000, acquire: 10_000 },
    dialectOptions: {
      // A dead database must fail requests quickly (503), not hang them.
      connectionTimeoutMillis: 5_000,
      statement_timeout: 30_000,
      idle_in_transaction_session_timeout: 60_000,
      application_name: 'staff-crm',
    },
    define: { underscored: true, timestamps: true },
    dialectModule: pgWithErrorListeners,
  });
  initModels(sequelize);
  return sequelize;
}

/**
 * Connects to DATABASE_URL, or starts (or adopts) the embedded PostgreSQL in the data directory.
 * On close, the embedded server is stopped only by the process that started it (`startedHere`; the
 * service also owns an orphan it adopted, see EmbeddedPostgres.start), so neither an admin command nor
 * a second serve ever pulls the database from under a running server. `stopEmbedded` overrides.
 */
export async function openDatabase(config: AppConfig, logger: Logger, opts: { poolMax?: number; service?: boolean } = {}): Promise<Database> {
  let embedded: EmbeddedPostgresHandle | undefined;
  let url = config.databaseUrl;
  if (!url) {
    const pg = new EmbeddedPostgres(config.dataDir, (msg) => logger.info(msg));
    embedded = await pg.start({ claimOrphan: opts.service ?? false });
    url = embedded.url;
    logger.debug('embedded PostgreSQL ready', { dir: pg.dir, startedHere: embedded.startedHere });
  }
  const sequelize = createSequelize(url, opts.poolMax, embedded ? `${embedded.majorVersion}.0.0` : undefined);
  try {
    await sequelize.authenticate();
  } catch (err) {
    await sequelize.close().catch(() => {});
    throw err;
  }
  return {
    sequelize,
    embedded,
    async close({ stopEmbedded } = {}) {
      await sequelize.close();
      if (embedded && (stopEmbedded ?? embedded.startedHere)) await embedded.stop();
    },
  };
}
