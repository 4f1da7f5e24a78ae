/**
 * One HTTP exchange with a JMAP server, with every failure turned into a typed JmapError. Shared by
 * the session fetch and the API calls so both classify errors identically.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { assertNoOpenTransaction } from '../db/transaction-scope.js';
import { JmapAuthError, JmapProtocolError, JmapTimeoutError, JmapUnreachableError } from './errors.js';
import type { JmapCredentials } from './types.js';

export type FetchImpl = typeof globalThis.fetch;

export interface HttpOptions {
  fetchImpl: FetchImpl;
  timeoutMs: number;
  /** Lets a caller (e.g. a shutting-down sync run) abandon the request; its reason is rethrown as is. */
  signal?: AbortSignal;
}

export interface JsonResponse {
  /** Where the body came from after redirects (used to resolve relative session URLs). */
  url: string;
  status: number;
  body: unknown;
}

export function authorizationHeader(credentials: JmapCredentials): string {
  if (credentials.kind === 'bearer') return `Bearer ${credentials.token}`;
  const pair = `${credentials.username}:${credentials.password}`;
  return `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
}

/**
 * Fetches `url` and parses a JSON body. The timeout covers connecting, the headers and the whole
 * body: a server that sends headers and then stalls must not hang a sync run.
 */
export async function fetchJson(url: string, init: RequestInit, options: HttpOptions): Promise<JsonResponse> {
  assertNoOpenTransaction(`JMAP request to ${url}`);
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  const fail = (err: unknown): never => {
    if (options.signal?.aborted) throw options.signal.reason;
    if (timeout.aborted) throw new JmapTimeoutError(options.timeoutMs, url);
    throw unreachable(url, err);
  };

  let res: Response;
  try {
    res = await options.fetchImpl(url, { ...init, signal, redirect: 'follow' });
  } catch (err) {
    return fail(err);
  }
  const finalUrl = res.url || url;

  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel().catch(() => {});
    throw new JmapAuthError(res.status);
  }

  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    return fail(err);
  }

  if (res.status < 200 || res.status > 299) throw httpStatusError(finalUrl, res.status, text);
  try {
    return { url: finalUrl, status: res.status, body: JSON.parse(text) as unknown };
  } catch (err) {
    throw new JmapProtocolError(`JMAP server at ${finalUrl} answered HTTP ${res.status} with a body that is not JSON`, {
      status: res.status,
      cause: err,
    });
  }
}

/**
 * Fetches `url` and answers the Response as soon as its headers arrived, body unread (blob transfer:
 * the caller streams it). The timeout covers everything until the headers (for an upload, the
 * request body too); afterwards only the caller's signal ends the transfer. 401/403 and other non-2xx
 * answers throw like fetchJson's, with the status kept (a missing blob is a JmapProtocolError 404).
 */
export async function fetchStream(url: string, init: RequestInit, options: HttpOptions): Promise<Response> {
  assertNoOpenTransaction(`JMAP transfer to ${url}`);
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout.signal, options.signal]) : timeout.signal;
  let res: Response;
  try {
    res = await options.fetchImpl(url, { ...init, signal, redirect: 'follow' });
  } catch (err) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (timeout.signal.aborted) throw new JmapTimeoutError(options.timeoutMs, url);
    throw unreachable(url, err);
  } finally {
    clearTimeout(timer);
  }
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel().catch(() => {});
    throw new JmapAuthError(res.status);
  }
  if (res.status < 200 || res.status > 299) {
    // An error page is small; read a bounded prefix for the problem type, then let the rest go.
    const text = await res.text().catch(() => '');
    throw httpStatusError(res.url || url, res.status, text.slice(0, 4096));
  }
  return res;
}

/**
 * GET `url` as a Node stream with real back-pressure: node:http pauses the socket while the reader
 * is slow. (undici's fetch reads a response body ahead of its reader: a 25 MB download through a
 * slow client would sit in memory.) Answers once the headers arrived; the timeout covers only that.
 * Classified like fetchJson: 401/403 JmapAuthError, other non-2xx JmapProtocolError with the status.
 */
export function getStream(url: string, headers: Record<string, string>, options: { timeoutMs: number; signal?: AbortSignal }): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const get = url.startsWith('https:') ? https.get : http.get;
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(err);
    };
    const req = get(url, { headers, signal: options.signal }, (res) => {
      if (settled) return void res.destroy();
      settled = true;
      clearTimeout(timer);
      const status = res.statusCode ?? 0;
      if (status === 401 || status === 403) {
        res.destroy();
        return reject(new JmapAuthError(status));
      }
      if (status < 200 || status > 299) {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (text.length < 4096) text += chunk;
        });
        res.on('error', () => reject(httpStatusError(url, status, text)));
        res.on('end', () => reject(httpStatusError(url, status, text.slice(0, 4096))));
        return;
      }
      resolve(res);
    });
    const timer = setTimeout(() => {
      fail(new JmapTimeoutError(options.timeoutMs, url));
      req.destroy();
    }, options.timeoutMs);
    req.on('error', (err) => {
      if (options.signal?.aborted) return fail(options.signal.reason);
      fail(unreachable(url, err));
    });
  });
}

/** undici reports every network failure as TypeError("fetch failed") with the real error as cause. */
function unreachable(url: string, err: unknown): JmapUnreachableError {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  const code = (cause as { code?: unknown } | undefined)?.code;
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new JmapUnreachableError(`JMAP server at ${url} is unreachable: ${detail}`, typeof code === 'string' ? code : undefined, {
    cause: err,
  });
}

/** Non-2xx: keep the RFC 7807 problem type (RFC 8620 §3.6.1 request-level errors) when there is one. */
function httpStatusError(url: string, status: number, text: string): JmapProtocolError {
  let problemType: string | undefined;
  let detail = '';
  try {
    const problem = JSON.parse(text) as { type?: unknown; detail?: unknown; limit?: unknown };
    if (typeof problem.type === 'string') problemType = problem.type;
    if (typeof problem.detail === 'string') detail = `: ${problem.detail}`;
    else if (typeof problem.limit === 'string') detail = `: limit ${problem.limit}`;
  } catch {
    // not a problem document; the status alone must do
  }
  const what = problemType ? ` (${problemType})` : '';
  return new JmapProtocolError(`JMAP server at ${url} answered HTTP ${status}${what}${detail}`, { status, problemType });
}
