/**
 * Typed JMAP failures. Callers branch on the class (or `kind`) to decide what the user sees and
 * whether a sync run should retry later: credentials are the user's problem, an unreachable or slow
 * server is ours, and a method error carries the server's own error type.
 */

export type JmapErrorKind = 'auth' | 'unreachable' | 'timeout' | 'protocol' | 'method';

export class JmapError extends Error {
  readonly kind: JmapErrorKind;

  constructor(kind: JmapErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
    this.name = new.target.name;
  }

  /** True when the same request may succeed later without anything being changed. */
  get retryable(): boolean {
    return false;
  }
}

/** 401/403: wrong or missing credentials (Cyrus also answers 401 for an unknown user), or a refused client. */
export class JmapAuthError extends JmapError {
  constructor(
    readonly status: number,
    message = `JMAP server rejected the credentials (HTTP ${status})`,
  ) {
    super('auth', message);
  }

  /**
   * 403: the server knows who is asking and refuses anyway. A server that blocks the CRM's address
   * answers so for every account; it says nothing about this account's password (RFC 9110: 401 is
   * the answer to bad credentials), so it must not stop the account's sync like a wrong password.
   */
  get refusesClient(): boolean {
    return this.status === 403;
  }
}

/** Connection refused or reset, DNS failure: no HTTP answer at all. */
export class JmapUnreachableError extends JmapError {
  constructor(
    message: string,
    /** The system error code when there is one (ECONNREFUSED, ENOTFOUND, UND_ERR_SOCKET...). */
    readonly code?: string,
    options?: { cause?: unknown },
  ) {
    super('unreachable', message, options);
  }

  override get retryable(): boolean {
    return true;
  }
}

/** The whole exchange (connect, headers and body) took longer than the configured timeout. */
export class JmapTimeoutError extends JmapError {
  constructor(
    readonly timeoutMs: number,
    url: string,
  ) {
    super('timeout', `JMAP request to ${url} timed out after ${timeoutMs} ms`);
  }

  override get retryable(): boolean {
    return true;
  }
}

/**
 * The server answered, but not as RFC 8620 says it should: an unexpected HTTP status, a body that
 * is not JSON or has the wrong shape, a request-level problem (RFC 8620 §3.6.1, `problemType`),
 * or a session without the capabilities we need.
 */
export class JmapProtocolError extends JmapError {
  readonly status?: number;
  readonly problemType?: string;

  constructor(message: string, details: { status?: number; problemType?: string; cause?: unknown } = {}) {
    super('protocol', message, { cause: details.cause });
    this.status = details.status;
    this.problemType = details.problemType;
  }

  /** 5xx and 429 are the server's passing trouble; anything else will fail the same way again. */
  override get retryable(): boolean {
    return this.status !== undefined && (this.status >= 500 || this.status === 429);
  }
}

/** A method-level `error` response (RFC 8620 §3.6.2), e.g. cannotCalculateChanges or stateMismatch. */
export class JmapMethodError extends JmapError {
  readonly type: string;
  readonly description?: string;
  /** The method that failed (from the matching call), when known. */
  readonly methodName?: string;
  readonly callId?: string;
  /**
   * The type the server actually sent, when the client normalised it (Cyrus answers
   * invalidArguments for an unparseable sinceState; we report cannotCalculateChanges).
   */
  readonly serverType?: string;
  /** The error object as received, for extra fields such as `arguments` or `properties`. */
  readonly details: Record<string, unknown>;

  constructor(type: string, details: Record<string, unknown> = {}, context: { methodName?: string; callId?: string; serverType?: string; description?: string } = {}) {
    const description = context.description ?? (typeof details.description === 'string' ? details.description : undefined);
    // Cyrus names the offending arguments/properties instead of describing them: keep them visible.
    const blamed = [details.arguments, details.properties].filter(Array.isArray).flat().map(String);
    const extra = [description, blamed.length > 0 ? `blames ${blamed.join(', ')}` : undefined].filter(Boolean).join('; ');
    super('method', `JMAP ${context.methodName ?? 'method'} failed: ${type}${extra ? ` (${extra})` : ''}`);
    this.type = type;
    this.description = description;
    this.methodName = context.methodName;
    this.callId = context.callId;
    this.serverType = context.serverType;
    this.details = details;
  }

  /** serverFail is left out: Cyrus uses it for permanent conditions too (a search without an index). */
  override get retryable(): boolean {
    return this.type === 'serverUnavailable';
  }
}
