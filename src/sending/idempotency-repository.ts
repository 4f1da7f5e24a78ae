import type { Sql } from '../db/sql.js';

export interface IdempotencyRow {
  fingerprint: string;
  /** failed: the send ended with an unknown outcome; its error is the answer to every retry (issue 47). */
  status: 'pending' | 'done' | 'failed';
  response_status: number | null;
  response_body: unknown;
  /** requestHash of the request that claimed the key; null before it is known (multipart) or for old rows. */
  body_hash: string | null;
}

/** send_idempotency_keys (migration 0010): one row per (user, Idempotency-Key) until it expires. */
export class IdempotencyRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Claims the key for a new request. Answers null when this call claimed it, else the row already
   * there (its expired predecessors are removed first: an old key is free again after its TTL).
   */
  async claim(userId: string, key: string, fingerprint: string, ttlSeconds: number, bodyHash: string | null): Promise<IdempotencyRow | null> {
    await this.sql.execute('DELETE FROM send_idempotency_keys WHERE user_id = $userId AND expires_at < now()', { userId });
    const inserted = await this.sql.select<{ key: string }>(
      `INSERT INTO send_idempotency_keys (user_id, key, fingerprint, status, expires_at, body_hash)
       VALUES ($userId, $key, $fingerprint, 'pending', now() + make_interval(secs => $ttl), $bodyHash)
       ON CONFLICT (user_id, key) DO NOTHING RETURNING key`,
      { userId, key, fingerprint, ttl: ttlSeconds, bodyHash },
    );
    if (inserted.length > 0) return null;
    const row = await this.sql.one<IdempotencyRow>(
      'SELECT fingerprint, status, response_status, response_body, body_hash FROM send_idempotency_keys WHERE user_id = $userId AND key = $key',
      { userId, key },
    );
    // Gone in between (released by its request): the caller may simply try again.
    return row ?? { fingerprint, status: 'pending', response_status: null, response_body: null, body_hash: null };
  }

  async complete(userId: string, key: string, status: number, body: unknown, bodyHash: string | null): Promise<void> {
    await this.sql.execute(
      `UPDATE send_idempotency_keys SET status = 'done', response_status = $status, response_body = $body::jsonb,
              body_hash = coalesce($bodyHash, body_hash)
        WHERE user_id = $userId AND key = $key`,
      { userId, key, status, body: JSON.stringify(body), bodyHash },
    );
  }

  /** The error a send with an unknown outcome answered, kept as the answer to its retries. */
  async fail(userId: string, key: string, status: number, body: unknown): Promise<void> {
    await this.sql.execute(
      `UPDATE send_idempotency_keys SET status = 'failed', response_status = $status, response_body = $body::jsonb
        WHERE user_id = $userId AND key = $key AND status = 'pending'`,
      { userId, key, status, body: JSON.stringify(body) },
    );
  }

  async release(userId: string, key: string): Promise<void> {
    await this.sql.execute("DELETE FROM send_idempotency_keys WHERE user_id = $userId AND key = $key AND status = 'pending'", { userId, key });
  }
}
