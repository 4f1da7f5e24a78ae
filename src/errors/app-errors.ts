import type { ErrorCode } from './error-codes.js';

export type { ErrorCode } from './error-codes.js';

/**
 * The error kinds of the contract (docs/contract.md §7). Every failure a user can cause is one of these;
 * anything else is rendered as a 500 with no internals by the error handler. Each carries a stable
 * `code` (src/errors/error-codes.ts): its kind's default, or a more specific one given by the thrower.
 */
export class AppError extends Error {
  readonly statusCode: number;
  readonly details?: unknown;
  /** Extra response headers the error needs (e.g. Retry-After on 429). */
  readonly headers: Record<string, string>;
  readonly code: ErrorCode;

  constructor(message: string, statusCode: number, details?: unknown, headers: Record<string, string> = {}, code: ErrorCode = 'internal_error') {
    super(message);
    this.name = new.target.name;
    this.statusCode = statusCode;
    this.details = details;
    this.headers = headers;
    this.code = code;
  }
}

export class ValidationError extends AppError {
  constructor(message = 'Neplatné údaje', details?: unknown, code: ErrorCode = 'validation_failed') {
    super(message, 400, details, {}, code);
  }
}

export class BadRequestError extends AppError {
  constructor(message = 'Zlá požiadavka', details?: unknown, code: ErrorCode = 'bad_request') {
    super(message, 400, details, {}, code);
  }
}

export class AuthenticationError extends AppError {
  constructor(message = 'Neautorizovaný prístup', code: ErrorCode = 'authentication_required') {
    super(message, 401, undefined, {}, code);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'Prístup zamietnutý', code: ErrorCode = 'forbidden', details?: unknown) {
    super(message, 403, details, {}, code);
  }
}

/** The right password of an account an administrator disabled (a wrong one stays 401 invalid_credentials). */
export class AccountDisabledError extends AppError {
  constructor(message = 'Účet je zablokovaný. Obráťte sa na administrátora.') {
    super(message, 403, undefined, {}, 'account_disabled');
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Nenájdené', code: ErrorCode = 'not_found') {
    super(message, 404, undefined, {}, code);
  }
}

/** An upload would take the user over their quota (files or bytes): their limit, not a server fault. */
export class QuotaExceededError extends AppError {
  constructor(message: string) {
    super(message, 403, undefined, {}, 'quota_exceeded');
  }
}

export class ConflictError extends AppError {
  constructor(message = 'Konflikt', details?: unknown, code: ErrorCode = 'conflict') {
    super(message, 409, details, {}, code);
  }
}

export class RateLimitError extends AppError {
  constructor(message = 'Príliš veľa požiadaviek', retryAfterSeconds?: number) {
    const headers: Record<string, string> = retryAfterSeconds ? { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) } : {};
    super(message, 429, undefined, headers, 'rate_limited');
  }
}

/** Errors with their own status code that the contract's kinds do not name (405, 413, 415, 502, 503, 504). */
export class MethodNotAllowedError extends AppError {
  constructor(allowed: string[], message = 'Metóda nie je pre túto cestu povolená') {
    super(message, 405, undefined, { Allow: allowed.join(', ') }, 'method_not_allowed');
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(message = 'Nepodporovaný typ obsahu požiadavky (očakáva sa application/json)') {
    super(message, 415, undefined, {}, 'unsupported_media_type');
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message = 'Požiadavka je príliš veľká') {
    super(message, 413, undefined, {}, 'payload_too_large');
  }
}

export class UpstreamError extends AppError {
  constructor(message = 'Poštový server nie je dostupný', statusCode: 502 | 504 = 502) {
    super(message, statusCode, undefined, {}, statusCode === 504 ? 'upstream_timeout' : 'upstream_unavailable');
  }
}

/** The disk is down to the reserve kept for the database (WebDAV's 507, RFC 4918). */
export class InsufficientStorageError extends AppError {
  constructor(message = 'Na serveri nie je dosť voľného miesta na uloženie súboru. Kontaktujte administrátora.') {
    super(message, 507, undefined, {}, 'insufficient_storage');
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(message = 'Služba je dočasne nedostupná', retryAfterSeconds = 5) {
    super(message, 503, undefined, { 'Retry-After': String(retryAfterSeconds) }, 'service_unavailable');
  }
}
