import type pg from 'pg';
import type { Sequelize } from 'sequelize';
import type { Logger } from '../logging/logger.js';
import { clientOptions, connectionSettingsOf, sessionSetup } from './connection-settings.js';
import { WatchedClient } from './watched-client.js';

const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 15_000;

export interface ListenerHandlers {
  notification(channel: string, payload: string): void;
  /** LISTEN is in place (first time or after a loss): whatever was missed meanwhile must be caught up. */
  connected(): void;
  lost(err: Error): void;
}

/**
 * One dedicated PostgreSQL connection that LISTENs on some channels, and comes back after a loss
 * with a growing pause. Used by the session cache and the events hub. Notifications sent while it
 * was away are gone: `connected` tells the owner to catch up from the table.
 */
export class PgListener {
  private client?: pg.Client;
  private connecting?: Promise<void>;
  private retryMs = RETRY_MIN_MS;
  private retryTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly sequelize: Sequelize,
    private readonly channels: string[],
    private readonly handlers: ListenerHandlers,
    private readonly logger?: Logger,
    /** Names the connection in pg_stat_activity: staff-crm-<purpose>-listener. */
    private readonly purpose = 'events',
  ) {}

  get listening(): boolean {
    return this.client !== undefined;
  }

  /** Connects unless connected; resolves once LISTEN is in place or the attempt failed (then retried later). */
  start(): Promise<void> {
    if (this.closed || this.client) return Promise.resolve();
    return (this.connecting ??= this.attempt().finally(() => (this.connecting = undefined)));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    await this.connecting;
    const client = this.client;
    this.client = undefined;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => {});
    }
  }

  /**
   * The pool's server, or DATABASE_LISTEN_URL: behind a PgBouncer in transaction mode the pool goes
   * through it and LISTEN, which needs a session of its own, straight to PostgreSQL (docs/scale-out.md).
   */
  private clientConfig(): pg.ClientConfig {
    const settings = connectionSettingsOf(this.sequelize);
    const common = { ...clientOptions(settings), application_name: `staff-crm-${this.purpose}-listener` };
    if (settings.listenUrl) return { ...common, connectionString: settings.listenUrl };
    const config = this.sequelize.config;
    // dialectOptions: what the URL's query string set (ssl ...), as for the pool's connections.
    return {
      ...(config.dialectOptions as pg.ClientConfig),
      ...common,
      host: config.host,
      port: Number(config.port),
      user: config.username,
      password: config.password ?? undefined,
      database: config.database,
    };
  }

  private async attempt(): Promise<void> {
    const settings = connectionSettingsOf(this.sequelize);
    const client = new WatchedClient(this.clientConfig());
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    client.on('notification', (msg) => this.handlers.notification(msg.channel, msg.payload ?? ''));
    try {
      await client.connect();
      // Never the reason a process stays alive (graceful shutdown, tests).
      (client as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
      // Its timeouts, as the pool's connections get them (never startup parameters: PgBouncer refuses them).
      await client.query(sessionSetup(settings));
      for (const channel of this.channels) await client.query(`LISTEN ${channel}`);
      if (this.closed) throw new Error('closed');
      this.client = client;
      this.retryMs = RETRY_MIN_MS;
      this.handlers.connected();
    } catch (err) {
      client.removeAllListeners('end');
      await client.end().catch(() => {});
      if (!this.closed) this.retryLater(err);
    }
  }

  private lost(client: pg.Client, err: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    void client.end().catch(() => {});
    this.handlers.lost(err);
    this.retryLater(err);
  }

  private retryLater(err: unknown): void {
    if (this.closed) return;
    this.logger?.warn(`${this.purpose} listener off until it reconnects`, { error: err instanceof Error ? err.message : String(err), retryMs: this.retryMs });
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.start(), this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }
}
