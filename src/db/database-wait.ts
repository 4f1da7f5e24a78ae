import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Logger } from '../logging/logger.js';

export interface DatabaseWaitOptions {
  url: string;
  /** How long to keep trying (DATABASE_WAIT_SECONDS); 0 tries once. */
  waitSeconds: number;
  logger: Logger;
  /** SIGTERM during the wait: stop at once (the promise rejects with an AbortError). */
  signal?: AbortSignal;
}

/** Between tries: 0.5 s doubling up to 5 s, so a database that comes up is found within seconds. */
const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 5_000;

/**
 * Waits until the database at `url` accepts a connection, for a boot where PostgreSQL (or the network
 * to it) comes up after the service. Each failed try is one log line with the next delay. It gives up
 * quietly after `waitSeconds`, or at once on a refusal that waiting does not cure (a wrong password,
 * a missing database): the start then fails with its usual one-line reason.
 */
export async function waitForDatabase(options: DatabaseWaitOptions): Promise<void> {
  const { logger, signal } = options;
  const deadline = Date.now() + options.waitSeconds * 1000;
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    let failure: unknown;
    try {
      await probe(options.url);
      if (attempt > 1) logger.info('database reachable', { attempt });
      return;
    } catch (err) {
      failure = err;
    }
    const reason = describe(failure);
    if (!isWorthWaiting(failure)) return;
    const left = deadline - Date.now();
    if (left <= 0) {
      logger.warn('database still not reachable; giving up waiting', { attempt, waitedSeconds: options.waitSeconds, reason });
      return;
    }
    const delay = Math.min(FIRST_DELAY_MS * 2 ** Math.min(attempt - 1, 10), MAX_DELAY_MS, left);
    logger.warn('database not reachable yet; retrying', { attempt, retryInMs: delay, reason });
    await sleep(delay, undefined, { signal });
  }
}

async function probe(url: string): Promise<void> {
  // A host that accepts the connection but never answers (a stalled proxy) counts as not there yet.
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, query_timeout: 5_000, application_name: 'staff-crm-wait' });
  // A connection the server drops during the handshake emits 'error' as well as rejecting connect().
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Not there yet: refused, unknown or unreachable host (DNS or the network may come up later), no
 * socket file yet (ENOENT: a server on a Unix socket that has not started, as the embedded one's and
 * `?host=/run/postgresql` are before it), a timeout, a dropped handshake, or PostgreSQL still starting
 * (57P03) or shutting down (57P01/57P02).
 */
export function isWorthWaiting(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    if (/^(ECONNREFUSED|ECONNRESET|ENOENT|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE)$/.test(code)) return true;
    if (/^57P0[1-3]$/.test(code) || code.startsWith('08')) return true;
  }
  const message = err instanceof Error ? err.message : '';
  return /Connection terminated|timeout expired|connection timeout|Query read timeout/i.test(message);
}

/** The driver's reason, never the URL (it may hold the password). */
function describe(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown } | null;
  return [typeof e?.code === 'string' ? e.code : '', typeof e?.message === 'string' ? e.message : String(err)].filter(Boolean).join(': ');
}
