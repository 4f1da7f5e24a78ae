/**
 * JMAP API client (RFC 8620): one authenticated request at a time, session caching, method-error
 * handling and splitting large work so it stays within the server's advertised limits.
 */
import { JmapMethodError, JmapProtocolError } from './errors.js';
import type { IncomingMessage } from 'node:http';
import { authorizationHeader, fetchJson, fetchStream, getStream, type FetchImpl } from './http.js';
import { DEFAULT_TIMEOUT_MS, fetchSession } from './session.js';
import { CORE_CAPABILITY, MAIL_CAPABILITY, type JmapCredentials, type JmapLimits, type JmapSession, type MethodCall, type MethodResponse } from './types.js';

export interface JmapClientOptions {
  sessionUrl: string;
  credentials: JmapCredentials;
  /** Per HTTP request, body included. */
  timeoutMs?: number;
  fetchImpl?: FetchImpl;
  /** Tighter limits than the server advertises (tests, or to keep single responses small). */
  limitsOverride?: Partial<JmapLimits>;
  /** Capabilities sent in `using` besides core and mail. */
  extraCapabilities?: string[];
  /** Told when a response reveals that the session resource changed (it is re-fetched lazily). */
  onSessionChanged?: (oldState: string, newState: string) => void;
}

export interface CallOptions {
  /** Throw the first `error` method response as a JmapMethodError instead of returning it. */
  throwOnMethodError?: boolean;
  signal?: AbortSignal;
  /** Capabilities this request needs beyond the client's (e.g. submission for EmailSubmission/set). */
  using?: string[];
}

export class JmapClient {
  /** HTTP requests made so far (session fetches and API calls), for benchmarks and tests. */
  requestCount = 0;
  /** How often a response's sessionState differed from the cached session's state. */
  sessionChanged = 0;

  private readonly options: JmapClientOptions;
  private readonly fetchImpl: FetchImpl;
  private readonly timeoutMs: number;
  private cached?: Promise<JmapSession>;
  private callSeq = 0;

  constructor(options: JmapClientOptions) {
    this.options = options;
    this.fetchImpl = options.fetchImpl ?? globalThis.fetch;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** The cached session; concurrent first callers share one fetch, a failed fetch is not cached. */
  session(): Promise<JmapSession> {
    if (!this.cached) {
      this.requestCount++;
      const pending = fetchSession(this.options.sessionUrl, this.options.credentials, {
        timeoutMs: this.timeoutMs,
        fetchImpl: this.fetchImpl,
      });
      this.cached = pending;
      pending.catch(() => {
        if (this.cached === pending) this.cached = undefined;
      });
    }
    return this.cached;
  }

  refreshSession(): Promise<JmapSession> {
    this.cached = undefined;
    return this.session();
  }

  /** The server's limits, narrowed by `limitsOverride`. */
  async limits(): Promise<JmapLimits> {
    const { limits } = await this.session();
    const override = this.options.limitsOverride ?? {};
    const narrowed = { ...limits };
    for (const key of Object.keys(limits) as (keyof JmapLimits)[]) {
      const value = override[key];
      if (value !== undefined) narrowed[key] = Math.max(1, Math.min(value, limits[key]));
    }
    return narrowed;
  }

  /** The primary mail account of the authenticated user. */
  async mailAccountId(): Promise<string> {
    const id = (await this.session()).primaryAccounts[MAIL_CAPABILITY];
    if (!id) throw new JmapProtocolError('JMAP session has no primary mail account');
    return id;
  }

  /** A call id unique within this client, for helpers that build their own method calls. */
  nextCallId(prefix = 'c'): string {
    return `${prefix}${++this.callSeq}`;
  }

  /** Sends the method calls as ONE request and returns the method responses in order. */
  async call(methodCalls: MethodCall[], options: CallOptions = {}): Promise<MethodResponse[]> {
    const session = await this.session();
    const { maxCallsInRequest } = await this.limits();
    if (methodCalls.length > maxCallsInRequest) {
      throw new RangeError(`${methodCalls.length} method calls exceed maxCallsInRequest (${maxCallsInRequest})`);
    }
    this.requestCount++;
    const res = await fetchJson(
      session.apiUrl,
      {
        method: 'POST',
        headers: {
          Authorization: authorizationHeader(this.options.credentials),
          'Content-Type': 'application/json',
          Accept: 'application/json',
        },
        body: JSON.stringify({
          using: [...new Set([CORE_CAPABILITY, MAIL_CAPABILITY, ...(this.options.extraCapabilities ?? []), ...(options.using ?? [])])],
          methodCalls,
        }),
      },
      { fetchImpl: this.fetchImpl, timeoutMs: this.timeoutMs, signal: options.signal },
    );
    const { methodResponses, sessionState } = parseApiResponse(res.body, res.url);
    this.noteSessionState(session, sessionState);
    if (options.throwOnMethodError) {
      for (const [name, args, callId] of methodResponses) {
        if (name === 'error') throw toMethodError(args, callId, methodCalls);
      }
    }
    return methodResponses;
  }

  /** One method call; returns its response arguments or throws its method error. */
  async callOne<T = Record<string, unknown>>(name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<T> {
    const callId = this.nextCallId();
    const responses = await this.call([[name, args, callId]], { ...options, throwOnMethodError: true });
    return responseFor(responses, callId, name) as T;
  }

  /**
   * Sends independent method calls in as few requests as maxCallsInRequest allows, one request at a
   * time (polite to the server, and ordered). Back-references cannot span requests: use call().
   */
  async callInBatches(methodCalls: MethodCall[], options: CallOptions = {}): Promise<MethodResponse[]> {
    const { maxCallsInRequest } = await this.limits();
    const out: MethodResponse[] = [];
    for (const group of chunk(methodCalls, maxCallsInRequest)) out.push(...(await this.call(group, options)));
    return out;
  }

  /**
   * A Foo/get for many ids, split by maxObjectsInGet and then maxCallsInRequest. `state` is the
   * first batch's: if the data changed in between, a later /changes from that state replays it.
   */
  async getInBatches<T>(
    method: string,
    accountId: string,
    ids: readonly string[],
    args: Record<string, unknown> = {},
    options: CallOptions = {},
  ): Promise<{ list: T[]; notFound: string[]; state: string | undefined }> {
    const { maxObjectsInGet } = await this.limits();
    const calls: MethodCall[] = chunk(ids, maxObjectsInGet).map((part) => [method, { ...args, accountId, ids: part }, this.nextCallId('g')]);
    const responses = await this.callInBatches(calls, { ...options, throwOnMethodError: true });
    const result = { list: [] as T[], notFound: [] as string[], state: undefined as string | undefined };
    for (const [, , callId] of calls) {
      const r = responseFor(responses, callId, method) as { list?: unknown; notFound?: unknown; state?: unknown };
      if (!Array.isArray(r.list)) throw new JmapProtocolError(`${method} response has no list`);
      result.list.push(...(r.list as T[]));
      if (Array.isArray(r.notFound)) result.notFound.push(...(r.notFound as string[]));
      if (result.state === undefined && typeof r.state === 'string') result.state = r.state;
    }
    return result;
  }

  /**
   * An authenticated request outside the API endpoint (blob upload and download, src/jmap/blob.ts):
   * answers the Response once its headers arrived, its body unread, so callers stream it. Failures
   * are classified like API calls; `timeoutMs` bounds the time until the headers.
   */
  async fetchBlob(url: string, init: RequestInit, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<Response> {
    this.requestCount++;
    const headers = new Headers(init.headers);
    headers.set('Authorization', authorizationHeader(this.options.credentials));
    return fetchStream(url, { ...init, headers }, { fetchImpl: this.fetchImpl, timeoutMs: options.timeoutMs ?? this.timeoutMs, signal: options.signal });
  }

  /** An authenticated GET streamed with back-pressure (blob download); see getStream in http.ts. */
  async getBlobStream(url: string, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<IncomingMessage> {
    this.requestCount++;
    const headers = { Authorization: authorizationHeader(this.options.credentials) };
    return getStream(url, headers, { timeoutMs: options.timeoutMs ?? this.timeoutMs, signal: options.signal });
  }

  private noteSessionState(session: JmapSession, sessionState: string): void {
    if (sessionState === session.state) return;
    this.sessionChanged++;
    this.cached = undefined;
    this.options.onSessionChanged?.(session.state, sessionState);
  }
}

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The arguments of the response with `callId`; a method error becomes a JmapMethodError. */
export function responseFor(responses: MethodResponse[], callId: string, methodName?: string): Record<string, unknown> {
  // One call can yield several responses (e.g. an implicit Email/set after EmailSubmission/set).
  const mine = responses.filter((r) => r[2] === callId);
  const found = mine.find((r) => r[0] === methodName) ?? mine.find((r) => r[0] === 'error') ?? mine[0];
  if (!found) throw new JmapProtocolError(`JMAP response lacks an answer to call ${callId}${methodName ? ` (${methodName})` : ''}`);
  if (found[0] === 'error') throw new JmapMethodError(typeof found[1].type === 'string' ? found[1].type : 'unknown', found[1], { methodName, callId });
  return found[1];
}

function toMethodError(args: Record<string, unknown>, callId: string, calls: MethodCall[]): JmapMethodError {
  const methodName = calls.find((c) => c[2] === callId)?.[0];
  return new JmapMethodError(typeof args.type === 'string' ? args.type : 'unknown', args, { methodName, callId });
}

function parseApiResponse(body: unknown, url: string): { methodResponses: MethodResponse[]; sessionState: string } {
  const b = body as { methodResponses?: unknown; sessionState?: unknown } | null;
  if (!b || typeof b !== 'object' || !Array.isArray(b.methodResponses) || typeof b.sessionState !== 'string') {
    throw new JmapProtocolError(`JMAP API at ${url} answered without methodResponses/sessionState`);
  }
  for (const r of b.methodResponses as unknown[]) {
    const ok = Array.isArray(r) && r.length === 3 && typeof r[0] === 'string' && typeof r[2] === 'string' && r[1] !== null && typeof r[1] === 'object';
    if (!ok) throw new JmapProtocolError(`JMAP API at ${url} answered a malformed method response`);
  }
  return { methodResponses: b.methodResponses as MethodResponse[], sessionState: b.sessionState };
}
