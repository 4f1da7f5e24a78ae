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
 * timeout errors, SQLSTATE class 08 and 57P01-57P03, a refused or reset socket, or a pooled connection
 * that died under a query.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const code = sqlState(err) ?? (err as { code?: unknown } | null)?.code;
  return err instanceof ConnectionError || err instanceof TimeoutError || isConnectionLoss(typeof code === 'string' ? code : undefined) || isDroppedConnection(err);
}

/**
 * The database could not be reached or refused the login (a start's most common failure): sequelize's
 * connection errors (refused, host not found or unreachable, access denied, invalid connection).
 */
export function isConnectFailure(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return typeof name === 'string' && name.startsWith('Sequelize') && /Connection|HostNotFound|HostNotReachable|AccessDenied|InvalidConnection/.test(name);
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
  const message = err instanceof DatabaseError ? (err as { parent?: { message?: unknown } }).parent?.message : err instanceof Error ? err.message : undefined;
  return typeof message === 'string' && DROPPED_CONNECTION.test(message);
}
