import pg from 'pg';
import { KEEPALIVE_DELAY_MS, queryTimeoutNow } from './connection-settings.js';
import { isQueryTimeout, isReadOnlyRefusal } from './db-errors.js';

interface ClientInternals {
  _invalid: boolean;
  connectionParameters: { query_timeout?: number | false };
  connection?: { stream?: { destroy(): void } };
  query: (...args: unknown[]) => unknown;
}

/**
 * pg's Client, as every connection of the program uses it (the pool's through Sequelize, the LISTEN
 * connection), with what a connection must do about failures pg leaves to its owner. A connection
 * marked invalid is dropped by Sequelize's pool when released, never handed out again.
 * - It listens for 'error' from the moment it exists: a connection the server ends (a restart, an
 *   administrator's terminate) while Sequelize has not yet attached its own listener, or no longer has
 *   one, emitted an unhandled 'error' that ended the process (test/hardening/faults-postgres.test.ts).
 * - A write refused as read-only (25006): after a failover the same address leads to the new primary
 *   only on a new connection (a standby's session stays a standby's), so this one goes.
 * - A query unanswered within the query timeout: pg fails the query but keeps the connection, with
 *   the unanswered query still in flight; everything sent after it (the transaction's ROLLBACK) would
 *   wait out the timeout again. The socket is closed at once instead, failing whatever is queued.
 * - A query is never a named prepared statement (only rate-limiter-flexible names its queries): behind a
 *   PgBouncer in transaction mode it would be prepared on one server connection and executed on
 *   another ("prepared statement ... already exists" / "does not exist"). An unnamed one is parsed
 *   anew each time, which costs the login throttle's few statements next to nothing.
 * Keep-alive starts probing after KEEPALIVE_DELAY_MS of silence. The query timeout is read at every
 * query (queryTimeoutNow: migrations and backups run without it).
 */
export class WatchedClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    // Sequelize hands pg only some of its dialectOptions, keepAliveInitialDelayMillis not among them.
    super(typeof config === 'object' && config.keepAlive ? { keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS, ...config } : config);
    const self = this as unknown as ClientInternals;
    this.on('error', () => (self._invalid = true));
    const configured = self.connectionParameters.query_timeout;
    let streaming = false;
    if (typeof configured === 'number' && configured > 0) {
      Object.defineProperty(self.connectionParameters, 'query_timeout', { get: () => (streaming ? 0 : queryTimeoutNow(configured)) });
    }
    const query = self.query.bind(this);
    self.query = (...args: unknown[]) => {
      if (isSubmittable(args[0])) {
        // A COPY stream or a cursor: pg's timer would never be cleared (they do not answer through the
        // query's callback), fail the stream mid-way and keep the process alive. pg reads the timeout
        // while query() runs, so the flag covers exactly this call.
        streaming = true;
        try {
          return query(...args);
        } finally {
          streaming = false;
        }
      }
      args[0] = unnamed(args[0]);
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === 'function') {
        args[last] = (err: unknown, result: unknown) => {
          if (err) this.afterFailure(err);
          (callback as (err: unknown, result: unknown) => void)(err, result);
        };
        return query(...args);
      }
      const answer = query(...args);
      if (answer instanceof Promise) answer.then(undefined, (err: unknown) => this.afterFailure(err));
      return answer;
    };
  }

  private afterFailure(err: unknown): void {
    const self = this as unknown as ClientInternals;
    if (isReadOnlyRefusal(err)) self._invalid = true;
    if (isQueryTimeout(err)) {
      self._invalid = true;
      self.connection?.stream?.destroy();
    }
  }
}

function isSubmittable(config: unknown): boolean {
  return typeof config === 'object' && config !== null && typeof (config as { submit?: unknown }).submit === 'function';
}

/** A query config without its prepared statement's name (a string: as it is). */
function unnamed(config: unknown): unknown {
  if (typeof config !== 'object' || config === null || !('name' in config)) return config;
  const { name: _name, ...rest } = config as Record<string, unknown>;
  return rest;
}
