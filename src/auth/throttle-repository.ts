import type * as RateLimiterFlexible from 'rate-limiter-flexible';
import type { RateLimiterRes } from 'rate-limiter-flexible';
import { RateLimitError } from '../errors/app-errors.js';
import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';
import { lazyRequire } from '../shared/lazy-require.js';

/** Loaded with the first counter (ADR 0113): most crm-admin commands never throttle anything. */
const rateLimiter = lazyRequire<typeof RateLimiterFlexible>('rate-limiter-flexible');

/** A counter's "over the limit" answer, as opposed to a failure of its store. */
export function isOverLimit(err: unknown): err is RateLimiterRes {
  return err instanceof rateLimiter().RateLimiterRes;
}

/**
 * One counter of failures per key; `consume` rejects with a RateLimiterRes (rate-limiter-flexible)
 * once the points are used up, and with anything else when the store fails.
 */
export interface ThrottleCounter {
  consume(key: string, points?: number): Promise<unknown>;
  delete(key: string): Promise<unknown>;
  reward(key: string): Promise<unknown>;
}

/**
 * The rate_limits table (migration 0001), kept by rate-limiter-flexible through the shared Sequelize
 * pool, so every instance behind a load balancer sees the same failures.
 */
export class ThrottleRepository {
  constructor(private readonly sql: Sql) {}

  /** A counter of `points` per `durationSeconds` for the keys under `keyPrefix`. */
  counter(keyPrefix: string, limit: { points: number; durationSeconds: number }): ThrottleCounter {
    // Made on the first count, not when the service holding it is built (a command that lists users
    // builds the timesheet area for its file clean-up, and never counts an upload).
    let made: ThrottleCounter | undefined;
    const counter = () => (made ??= this.limiter(keyPrefix, limit));
    return {
      consume: (key, points) => counter().consume(key, points),
      delete: (key) => counter().delete(key),
      reward: (key) => counter().reward(key),
    };
  }

  private limiter(keyPrefix: string, limit: { points: number; durationSeconds: number }): ThrottleCounter {
    return new (rateLimiter().RateLimiterPostgres)({
      storeClient: this.sql.sequelize,
      storeType: 'sequelize',
      tableName: 'rate_limits',
      tableCreated: true,
      keyPrefix,
      points: limit.points,
      duration: limit.durationSeconds,
      // Not one timer per counter and process: the hourly maintenance of `serve` deletes expired rows.
      clearExpiredByTimeout: false,
    });
  }

  /** Deletes counters whose window has ended (rate_limits.expire is in milliseconds); answers how many. */
  pruneExpired(now: Date, tx?: Tx): Promise<number> {
    return this.sql.execute('DELETE FROM rate_limits WHERE expire < $nowMs', { nowMs: now.getTime() }, tx);
  }
}

/**
 * Runs every counter's consume, one after the other (a request holds at most one pool connection at a
 * time, ADR 0121), each whatever the one before answered: a RateLimiterRes rejection means "over the
 * limit" and ends in one RateLimitError with the longest wait as Retry-After; anything else is a store
 * failure, passed on.
 */
export async function consumeAll(attempts: Array<() => Promise<unknown>>, message: string): Promise<void> {
  const results: PromiseSettledResult<unknown>[] = [];
  for (const attempt of attempts) {
    try {
      results.push({ status: 'fulfilled', value: await attempt() });
    } catch (reason) {
      results.push({ status: 'rejected', reason });
    }
  }
  let waitMs: number | undefined;
  for (const result of results) {
    if (result.status === 'fulfilled') continue;
    if (!isOverLimit(result.reason)) throw result.reason;
    waitMs = Math.max(waitMs ?? 0, result.reason.msBeforeNext);
  }
  if (waitMs !== undefined) throw new RateLimitError(message, Math.max(1, waitMs / 1000));
}
