import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type { Sql } from '../db/sql.js';

/**
 * One counter of failures per key; `consume` rejects with a RateLimiterRes (rate-limiter-flexible)
 * once the points are used up, and with anything else when the store fails.
 */
export interface ThrottleCounter {
  consume(key: string): Promise<unknown>;
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
    return new RateLimiterPostgres({
      storeClient: this.sql.sequelize,
      storeType: 'sequelize',
      tableName: 'rate_limits',
      tableCreated: true,
      keyPrefix,
      points: limit.points,
      duration: limit.durationSeconds,
    });
  }
}
