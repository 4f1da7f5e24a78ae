import { ConnectionError, DatabaseError, ForeignKeyConstraintError, TimeoutError, UniqueConstraintError } from 'sequelize';

/**
 * Every question about a database error is asked here, and only here: the driver's error classes and
 * PostgreSQL's SQLSTATE codes stay in this file, services and the HTTP error handler ask predicates.
 */

/** The database's refusals that services turn into the contract's errors (409, 404). */
export const isUniqueViolation = (err: unknown): boolean => err instanceof UniqueConstraintError;
export const isForeignKeyViolation = (err: unknown): boolean => err instanceof ForeignKeyConstraintError;

/**
 * Two transactions crossed in the database (deadlock 40P01, serialization failure 40001): this one
 * lost and was rolled back whole. Nothing broke and trying again is the cure.
 */
export function isConcurrencyConflict(err: unknown): boolean {
  return err instanceof DatabaseError && /^(?:40P01|40001)$/.test(sqlState(err) ?? '');
}

/**
 * PostgreSQL cancelled the statement (57014 query_canceled): it ran out of its statement timeout (an
 * overloaded database: a statement waiting on CPU, I/O or a lock for 30 s), or an operator cancelled
 * it. Its transaction is rolled back whole, so nothing it was part of changed and a retry is safe.
 */
export function isStatementCancelled(err: unknown): boolean {
  return err instanceof DatabaseError && sqlState(err) === '57014';
}

/**
 * The database is down, restarting or unreachable (an outage, not a bug): the driver's connection and
 * timeout errors, SQLSTATE class 08 and 57P01-57P03, a refused, reset or missing socket, a pooled connection
 * that died under a query or went unanswered past the client's query timeout, or a write refused as
 * read-only (a standby or a demoted primary during a failover).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const code = codeOf(err);
  return err instanceof ConnectionError || err instanceof TimeoutError || isConnectionLoss(code) || isMissingSocket(err) || isDroppedConnection(err) || isReadOnlyRefusal(err);
}

/**
 * A connect to a Unix socket that is not there (the embedded server's, or `?host=/run/postgresql`): its
 * server is down. Only a connect's ENOENT: a file that is missing elsewhere is no database outage.
 */
function isMissingSocket(err: unknown): boolean {
  const e = err as { code?: unknown; syscall?: unknown } | null;
  return e?.code === 'ENOENT' && e.syscall === 'connect';
}

/**
 * SQLSTATE 25006 read_only_sql_transaction: a write (or a LISTEN) reached a standby, a primary demoted
 * in a failover, or a database set read-only. Reads still work there; a connection that got it is
 * dropped (src/db/watched-client.ts), since only a new one can reach the new primary behind the address.
 */
export function isReadOnlyRefusal(err: unknown): boolean {
  return codeOf(err) === '25006';
}

/** The client gave up on a query unanswered within its query timeout (DATABASE_QUERY_TIMEOUT_MS). */
export function isQueryTimeout(err: unknown): boolean {
  return messageOf(err) === 'Query read timeout';
}

/**
 * The database could not be reached or refused the login (a start's most common failure): sequelize's
 * connection errors (refused, host not found or unreachable, access denied, invalid connection).
 */
export function isConnectFailure(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return typeof name === 'string' && name.startsWith('Sequelize') && /Connection|HostNotFound|HostNotReachable|AccessDenied|InvalidConnection/.test(name);
}

/** The SQLSTATE of a sequelize error (its driver error's) or of the driver's own error, or a socket's code. */
function codeOf(err: unknown): string | undefined {
  const code = sqlState(err) ?? (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function sqlState(err: unknown): string | undefined {
  const code = (err as { parent?: { code?: unknown } } | null)?.parent?.code;
  return typeof code === 'string' ? code : undefined;
}

/** PostgreSQL SQLSTATE class 08 (connection) and 57P0x (server shutting down or restarting). */
function isConnectionLoss(code: string | undefined): boolean {
  return !!code && (code.startsWith('08') || /^57P0[1-3]$/.test(code) || code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE');
}

/**
 * node-postgres names a connection that died under a query only in words, with no SQLSTATE: a query
 * on a pooled connection the server had just closed (the database was stopped) is one of these.
 * Sequelize wraps a query's error (DatabaseError, the driver's in `parent`) but not one of the
 * statements it runs itself on a new connection (`SET client_min_messages ...`): a server going down
 * between the log-in and that statement reaches us as the driver's own Error.
 */
const DROPPED_CONNECTION =
  /^(?:Client has encountered a connection error and is not queryable|Client was closed and is not queryable|Connection terminated(?: unexpectedly)?|Query read timeout)$/;

function isDroppedConnection(err: unknown): boolean {
  const message = messageOf(err);
  return message !== undefined && DROPPED_CONNECTION.test(message);
}

/** The driver's message: the wrapped one of a sequelize DatabaseError, or the driver's own Error's. */
function messageOf(err: unknown): string | undefined {
  const message = err instanceof DatabaseError ? (err as { parent?: { message?: unknown } }).parent?.message : err instanceof Error ? err.message : undefined;
  return typeof message === 'string' ? message : undefined;
}
