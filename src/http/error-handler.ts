import type { ErrorRequestHandler } from 'express';
import { AppError, BadRequestError, type ErrorCode, ConflictError, PayloadTooLargeError, ServiceUnavailableError, UnsupportedMediaTypeError } from '../errors/app-errors.js';
import { isConcurrencyConflict, isDatabaseUnavailable, isStatementCancelled } from '../db/db-errors.js';
import type { Logger } from '../logging/logger.js';
import { BurstLog } from './burst-log.js';
import { originalPath } from './middleware/request-id.js';

interface ErrorBody {
  success: false;
  error: { message: string; statusCode: number; code: ErrorCode; details?: unknown; stack?: string };
}

/** Errors raised by body-parser/multer before our code runs, mapped to the contract's kinds. */
export function fromFrameworkError(err: unknown): AppError | undefined {
  const e = err as { type?: string; status?: number; statusCode?: number; code?: string };
  // The database being down or restarting is an outage of ours, not a bug: 503 with Retry-After.
  if (isDatabaseUnavailable(err)) return new ServiceUnavailableError();
  // A statement cancelled by its timeout (the database overloaded) or an operator: rolled back whole,
  // reads and writes alike, so nothing changed and the client may try again (docs/adr/0123).
  if (isStatementCancelled(err)) return new ServiceUnavailableError();
  // Two requests crossed in the database (deadlock, serialization failure): this one lost and was rolled
  // back whole. Nothing broke and trying again is the cure.
  if (isConcurrencyConflict(err)) {
    return new ConflictError('Požiadavka sa stretla so súbežnou zmenou, skúste to znova');
  }
  if (e.type === 'entity.parse.failed') return new BadRequestError('Neplatný formát JSON', undefined, 'invalid_json');
  if (e.type === 'entity.too.large' || e.code === 'LIMIT_FILE_SIZE') return new PayloadTooLargeError();
  // body-parser's 415s: a charset other than UTF-8, a Content-Encoding it cannot undo.
  if (e.type === 'charset.unsupported') return new UnsupportedMediaTypeError('Nepodporovaná znaková sada požiadavky (očakáva sa UTF-8)');
  if (e.type === 'encoding.unsupported') return new UnsupportedMediaTypeError('Nepodporované kódovanie obsahu požiadavky (Content-Encoding)');
  if (e.type === 'request.aborted') return new BadRequestError('Požiadavka bola prerušená');
  const status = e.status ?? e.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return ownClientError(status);
  return undefined;
}

/**
 * A client error of a library keeps its own status where we have a code for it (docs/contract.md §7: errors keep
 * their own 4xx); a status we have no code for is the generic 400.
 */
const CLIENT_ERRORS: Partial<Record<number, [ErrorCode, string]>> = {
  408: ['request_timeout', 'Požiadavka neprišla včas'],
  413: ['payload_too_large', 'Požiadavka je príliš veľká'],
  415: ['unsupported_media_type', 'Nepodporovaný typ obsahu požiadavky'],
  417: ['expectation_failed', 'Nepodporovaná hlavička Expect'],
  431: ['request_headers_too_large', 'Hlavičky požiadavky sú príliš veľké'],
};

function ownClientError(status: number): AppError {
  const known = CLIENT_ERRORS[status];
  return known ? new AppError(known[1], status, undefined, {}, known[0]) : new BadRequestError();
}

export function renderError(err: unknown, showStack: boolean): { status: number; body: ErrorBody; headers: Record<string, string> } {
  const known = err instanceof AppError ? err : fromFrameworkError(err);
  const statusCode = known?.statusCode ?? 500;
  const body: ErrorBody = {
    success: false,
    error: { message: known?.message ?? 'Interná chyba servera', statusCode, code: known?.code ?? 'internal_error' },
  };
  if (known?.details !== undefined) body.error.details = known.details;
  if (showStack && err instanceof Error && err.stack) body.error.stack = err.stack;
  return { status: statusCode, body, headers: known?.headers ?? {} };
}

/** A warning for the first of a burst of one database condition, with its cause and how many went unsaid before. */
function sayOnce(burst: BurstLog, logger: Logger, message: string, err: unknown, fields: Record<string, unknown>): void {
  const { log, suppressedBefore } = burst.occur();
  if (!log) return;
  const cause = (err as { message?: unknown }).message;
  logger.warn(message, { ...fields, ...(typeof cause === 'string' ? { cause } : {}), suppressedBefore });
}

/**
 * Unexpected errors (bugs) are logged at error with their stack. Expected ones are not: a 4xx at
 * debug, a 503 the code chose (JMAP not configured, the database down or restarting) at warn with its
 * message and cause, no stack. The database out of reach (down, "too many clients", the pool's wait
 * ran out) fails every request for a while: said once per burst, with how many went unsaid. So does
 * an overloaded database cancelling statements at their timeout, with the route of the first one.
 */
export function createErrorHandler(logger: Logger, showStack: boolean): ErrorRequestHandler {
  const databaseOutage = new BurstLog();
  const databaseOverload = new BurstLog();
  return (err: unknown, req, res, _next) => {
    const { status, body, headers } = renderError(err, showStack);
    const path = originalPath(req);
    const expected = err instanceof AppError || status < 500 || fromFrameworkError(err) !== undefined;
    if (!expected) {
      logger.error('request failed', { err, method: req.method, path, status });
    } else if (isDatabaseUnavailable(err)) {
      sayOnce(databaseOutage, logger, 'database unavailable: answering 503', err, { method: req.method, path, status });
    } else if (isStatementCancelled(err)) {
      const route = (req as { route?: { path?: unknown } }).route?.path;
      const where = { method: req.method, path, ...(typeof route === 'string' ? { route } : {}), status };
      sayOnce(databaseOverload, logger, 'database statement cancelled (timeout or operator): answering 503', err, where);
    } else if (status >= 500) {
      const cause = err instanceof AppError ? undefined : (err as { message?: unknown }).message;
      logger.warn('request failed', { method: req.method, path, status, reason: body.error.message, ...(typeof cause === 'string' ? { cause } : {}) });
    } else {
      logger.debug('request rejected', { method: req.method, path, status, reason: body.error.message });
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.status(status).set(headers).json(body);
  };
}
