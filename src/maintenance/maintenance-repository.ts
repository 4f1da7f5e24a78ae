import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';

/** Housekeeping that belongs to no area: which instance does it. */
export class MaintenanceRepository {
  constructor(private readonly sql: Sql) {}

  /** Takes the advisory lock `key` until the transaction ends, if nobody holds it; answers whether it did. */
  async tryLock(key: number, tx: Tx): Promise<boolean> {
    const row = await this.sql.one<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($key::bigint) AS locked', { key }, tx);
    return row?.locked === true;
  }

  /**
   * What the retention job has left to delete (its backlog, ADR 0145): sessions that ended (expired, or
   * revoked more than `revokedKeepDays` ago) and expired throttle counters, and since when the oldest
   * has been waiting. Audit records are left out: their age limit is a setting that may change.
   */
  async retentionBacklog(revokedKeepDays: number): Promise<{ due: number; oldestDueSeconds: number | null; expiredLeases: number }> {
    const row = await this.sql.one<{ due: number; oldest: number | null }>(
      `WITH due AS (
         SELECT LEAST(CASE WHEN expires_at < now() THEN expires_at END,
                      CASE WHEN revoked_at < now() - make_interval(days => $days) THEN revoked_at + make_interval(days => $days) END) AS since
           FROM sessions WHERE expires_at < now() OR revoked_at < now() - make_interval(days => $days)
         UNION ALL
         SELECT to_timestamp(expire / 1000.0) FROM rate_limits WHERE expire < extract(epoch FROM now()) * 1000)
       SELECT count(*)::int AS due, extract(epoch FROM now() - min(since))::float8 AS oldest FROM due`,
      { days: revokedKeepDays },
    );
    return { due: row?.due ?? 0, oldestDueSeconds: row?.oldest ?? null, expiredLeases: 0 };
  }
}
