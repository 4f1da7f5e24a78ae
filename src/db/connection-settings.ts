import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';
import type { Sequelize } from 'sequelize';

/**
 * How every connection of the program to PostgreSQL behaves, in one place (docs/adr/0133-database-connections.md):
 * the pool's, the LISTEN connection's and a command's.
 *
 * - The server-side timeouts are set with a `SET` after the log-in, never as startup parameters:
 *   PgBouncer refuses a startup parameter it does not know ("unsupported startup parameter") unless it
 *   is configured to ignore it, and then they would silently not apply.
 * - TCP keep-alive finds a host that vanished (no reset, no answer) while a connection is idle or
 *   waits on a long statement; the client-side query timeout finds a path that stopped forwarding
 *   while the sockets stay open (a frozen proxy, a black-holed route), which keep-alive cannot see.
 *   The query timeout is longer than the statement timeout, so a slow statement is cancelled by the
 *   server (57014) and only an unanswered one by the client.
 */
export interface ConnectionSettings {
  /** statement_timeout of every session (DATABASE_STATEMENT_TIMEOUT_MS). */
  statementTimeoutMs: number;
  /** The client gives up on a query unanswered this long and drops its connection (DATABASE_QUERY_TIMEOUT_MS). */
  queryTimeoutMs: number;
  /** Where the LISTEN connection goes, when not to DATABASE_URL (DATABASE_LISTEN_URL). */
  listenUrl?: string;
}

export const DEFAULT_CONNECTION_SETTINGS: ConnectionSettings = { statementTimeoutMs: 12_000, queryTimeoutMs: 15_000 };

/** A session idle inside a transaction this long is ended by the server (a forgotten transaction holds locks). */
const IDLE_IN_TRANSACTION_MS = 60_000;
/** A log-in unanswered this long fails (503), as a refused one does. */
const CONNECT_TIMEOUT_MS = 5_000;
/** First keep-alive probe after this much silence; Node then probes every second, ten times. */
export const KEEPALIVE_DELAY_MS = 5_000;

const settingsOf = new WeakMap<Sequelize, ConnectionSettings>();

export function rememberConnectionSettings(sequelize: Sequelize, settings: ConnectionSettings): void {
  settingsOf.set(sequelize, settings);
}

export function connectionSettingsOf(sequelize: Sequelize): ConnectionSettings {
  return settingsOf.get(sequelize) ?? DEFAULT_CONNECTION_SETTINGS;
}

/** The socket and client options of every connection (pg.ClientConfig). */
export function clientOptions(settings: ConnectionSettings): Pick<pg.ClientConfig, 'keepAlive' | 'keepAliveInitialDelayMillis' | 'connectionTimeoutMillis' | 'query_timeout'> {
  return { keepAlive: true, keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, query_timeout: settings.queryTimeoutMs };
}

/** What a new connection runs once logged in; the values are numbers from the validated config. */
export function sessionSetup(settings: ConnectionSettings): string {
  return `SET statement_timeout = ${Math.trunc(settings.statementTimeoutMs)}; SET idle_in_transaction_session_timeout = ${IDLE_IN_TRANSACTION_MS}`;
}

const unbounded = new AsyncLocalStorage<true>();

/**
 * Runs work whose statements may rightly take longer than the query timeout (migrations, a backup's
 * COPY, waiting on the migration lock): the queries it sends carry no client-side timeout. Keep-alive
 * still finds a vanished host under them.
 */
export function withoutQueryTimeout<T>(work: () => Promise<T>): Promise<T> {
  return unbounded.run(true, work);
}

/**
 * The query timeout a query sent now gets (0: none, pg then starts no timer): pg reads
 * `connectionParameters.query_timeout` at every query, so a getter there answers per call, from the
 * async context of the caller.
 */
export function queryTimeoutNow(configured: number): number {
  return unbounded.getStore() ? 0 : configured;
}
