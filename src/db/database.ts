import pg from 'pg';
import { Sequelize } from 'sequelize';
import type { AppConfig } from '../config/config.js';
import type { Logger } from '../logging/logger.js';
import { clientOptions, DEFAULT_CONNECTION_SETTINGS, rememberConnectionSettings, sessionSetup, type ConnectionSettings } from './connection-settings.js';
import { EmbeddedPostgres, type EmbeddedPostgresHandle } from './embedded-postgres.js';
import { WatchedClient } from './watched-client.js';
import { initModels } from '../models/index.js';

export interface Database {
  sequelize: Sequelize;
  /** Set when the database is the embedded one in the data directory. */
  embedded?: EmbeddedPostgresHandle;
  /**
   * How to reach the schema's owner when `sequelize` is not connected as it (the embedded `crm_owner`,
   * DATABASE_OWNER_URL): migrations and restores run there (schema-owner.ts). Unset: one role does both.
   */
  ownerUrl?: string;
  /** Set when `sequelize` is the owner's (opened `asOwner`): the role that serves with rows only. */
  serviceRole?: string;
  close(options?: { stopEmbedded?: boolean }): Promise<void>;
}

const pgWithWatchedClients = { ...pg, Client: WatchedClient };

/**
 * `databaseVersion` (x.y.z), when known: Sequelize otherwise opens a connection of its own only to read
 * the server's version, closes it and opens the pool's first one (two log-ins, SCRAM included, for a
 * one-query command). It compares the version only with 9.x releases (features every supported
 * PostgreSQL has), so the major version is enough.
 */
export function createSequelize(
  url: string,
  poolMax = 10,
  databaseVersion?: string,
  settings: ConnectionSettings = DEFAULT_CONNECTION_SETTINGS,
  options: { models?: boolean } = {},
): Sequelize {
  const sequelize = new Sequelize(url, {
    dialect: 'postgres',
    ...(databaseVersion ? { databaseVersion } : {}),
    logging: false,
    // Timestamps in UTC regardless of the host's zone: audit records are compared across machines.
    timezone: '+00:00',
    pool: { max: poolMax, min: 0, idle: 10_000, acquire: 10_000 },
    // A dead or vanished database must fail requests quickly (503), not hang them: keep-alive, the
    // connect and query timeouts (connection-settings.ts). No server setting travels as a startup
    // parameter (PgBouncer refuses them): the session's timeouts are SET after the log-in, below.
    dialectOptions: { ...clientOptions(settings), application_name: 'staff-crm' },
    define: { underscored: true, timestamps: true },
    dialectModule: pgWithWatchedClients,
  });
  const setup = sessionSetup(settings);
  sequelize.addHook('afterConnect', 'sessionSettings', async (connection) => {
    await (connection as pg.Client).query(setup);
  });
  rememberConnectionSettings(sequelize, settings);
  // The models are bound to one instance (the app's); a second connection (the schema owner's) runs SQL only.
  if (options.models !== false) initModels(sequelize);
  return sequelize;
}

/**
 * Connects to DATABASE_URL, or starts (or adopts) the embedded PostgreSQL in the data directory.
 * On close, the embedded server is stopped only by the process that started it (`startedHere`; the
 * service also owns an orphan it adopted, see EmbeddedPostgres.start), so neither an admin command nor
 * a second serve ever pulls the database from under a running server. `stopEmbedded` overrides.
 */
export async function openDatabase(config: AppConfig, logger: Logger, opts: { poolMax?: number; service?: boolean; asOwner?: boolean } = {}): Promise<Database> {
  let embedded: EmbeddedPostgresHandle | undefined;
  let url = config.databaseUrl;
  let ownerUrl = config.databaseOwnerUrl;
  let serviceUrl = url;
  if (!url) {
    const pg = new EmbeddedPostgres(config.dataDir, (msg) => logger.info(msg));
    embedded = await pg.start({ claimOrphan: opts.service ?? false });
    url = serviceUrl = embedded.url;
    ownerUrl = embedded.ownerUrl;
    logger.debug('embedded PostgreSQL ready', { dir: pg.dir, startedHere: embedded.startedHere });
  }
  // `db migrate` and `db restore` work as the owner throughout; everything else as the service's role.
  let serviceRole: string | undefined;
  if (opts.asOwner && ownerUrl) {
    serviceRole = roleOf(serviceUrl!);
    url = ownerUrl;
    ownerUrl = undefined;
  }
  const settings = { statementTimeoutMs: config.databaseStatementTimeoutMs, queryTimeoutMs: config.databaseQueryTimeoutMs, listenUrl: config.databaseListenUrl };
  const sequelize = createSequelize(url, opts.poolMax, embedded ? `${embedded.majorVersion}.0.0` : undefined, settings);
  try {
    await sequelize.authenticate();
  } catch (err) {
    await sequelize.close().catch(() => {});
    throw err;
  }
  return {
    sequelize,
    embedded,
    ownerUrl,
    serviceRole,
    async close({ stopEmbedded } = {}) {
      await sequelize.close();
      if (embedded && (stopEmbedded ?? embedded.startedHere)) await embedded.stop();
    },
  };
}

/** The role a connection string logs in as (the DBA names it in DATABASE_URL when an owner URL is set). */
function roleOf(url: string): string {
  const user = decodeURIComponent(new URL(url).username);
  if (!user) throw new Error('DATABASE_URL names no user: with DATABASE_OWNER_URL it must name the role the service logs in as');
  return user;
}
