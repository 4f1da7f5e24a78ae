/**
 * The error kinds of the service spec (section 7). Every failure a user can cause is one of these;
 * anything else is rendered as a 500 with no internals by the error handler.
 */
export class AppError extends Error {
  readonly statusCode: number;
  readonly details?: unknown;
  /** Extra response headers the error needs (e.g. Retry-After on 429). */
  readonly headers: Record<string, string>;

  constructor(message: string, statusCode: number, details?: unknown, headers: Record<string, string> = {}) {
    super(message);
    this.name = new.target.name;
    this.statusCode = statusCode;
    this.details = details;
    this.headers = headers;
  }
}

export class ValidationError extends AppError {
  constructor(message = 'Neplatné údaje', details?: unknown) {
    super(message, 400, details);
  }
}

export class BadRequestError extends AppError {
  constructor(message = 'Zlá požiadavka', details?: unknown) {
    super(message, 400, details);
  }
}

export class AuthenticationError extends AppError {
  constructor(message = 'Neautorizovaný prístup') {
    super(message, 401);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'Prístup zamietnutý') {
    super(message, 403);
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Nenájdené') {
    super(message, 404);
  }
}

export class ConflictError extends AppError {
  constructor(message = 'Konflikt', details?: unknown) {
    super(message, 409, details);
  }
}

export class RateLimitError extends AppError {
  constructor(message = 'Príliš veľa požiadaviek', retryAfterSeconds?: number) {
    const headers: Record<string, string> = retryAfterSeconds
      ? { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) }
      : {};
    super(message, 429, undefined, headers);
  }
}

/** Errors with their own status code that the spec's table does not name (413, 502, 503, 504). */
export class PayloadTooLargeError extends AppError {
  constructor(message = 'Požiadavka je príliš veľká') {
    super(message, 413);
  }
}

export class UpstreamError extends AppError {
  constructor(message = 'Poštový server nie je dostupný', statusCode: 502 | 504 = 502) {
    super(message, statusCode);
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(message = 'Služba je dočasne nedostupná', retryAfterSeconds = 5) {
    super(message, 503, undefined, { 'Retry-After': String(retryAfterSeconds) });
  }
}
