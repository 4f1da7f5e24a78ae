import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';
import { offsetOf, type Page, type PageRequest } from '../shared/pagination.js';

/** A delivery leased for one attempt: what the request is built from. */
export interface LeasedDelivery {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  payload: Record<string, unknown>;
  eventCreatedAt: Date;
  /** This attempt's number (1 = the first). */
  attempt: number;
  url: string;
  secretSealed: string;
}

export interface AttemptOutcome {
  deliveryId: string;
  webhookId: string;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  status: 'pending' | 'delivered' | 'failed';
  nextRetryAt: Date | null;
}

export interface AttemptRecord {
  id: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  deliveryStatus: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  attemptedAt: Date;
  nextRetryAt: Date | null;
}

/** The webhook_deliveries and webhook_attempts tables (migration 0045): the delivery queue. */
export class DeliveryRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Copies outbox events an enabled webhook wants and has no row for yet into its queue; answers how
   * many. The unique (webhook_id, event_id) makes concurrent claims from several instances and an
   * event committed late (its id below ones already claimed) both harmless: the anti-join sees every
   * event the outbox still holds, not only those past a cursor.
   */
  claimNew(limit: number, tx?: Tx): Promise<number> {
    return this.sql.execute(
      `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, payload, event_created_at)
       SELECT w.id, e.id, e.type, e.payload, e.created_at
         FROM webhooks w JOIN events e ON e.type = ANY (w.events) AND e.created_at >= w.since
        -- Events addressed to one user (a member's own read of a conversation) are that user's news, not the company's;
        -- a follow-up or a task coming due is the company's news too.
        WHERE w.enabled AND (e.user_id IS NULL OR e.type IN ('follow_up.due', 'task.due')) AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.event_id = e.id)
        ORDER BY e.id
        LIMIT $limit
       ON CONFLICT (webhook_id, event_id) DO NOTHING`,
      { limit },
      tx,
    );
  }

  /**
   * Leases up to `limit` due deliveries of enabled webhooks for `leaseSeconds` (one statement, its
   * own short transaction): an instance that dies mid-call loses the lease and another retries.
   * SKIP LOCKED lets instances lease disjoint rows at the same moment. `busyWebhooks`: webhooks this
   * instance already has enough calls open to (a slow receiver): their rows wait for the next round,
   * and the round serves the others.
   */
  lease(limit: number, leaseSeconds: number, busyWebhooks: string[] = []): Promise<LeasedDelivery[]> {
    return this.sql.select<LeasedDelivery>(
      `UPDATE webhook_deliveries d SET lease_until = now() + make_interval(secs => $leaseSeconds), attempts = d.attempts + 1
         FROM webhooks w
        WHERE w.id = d.webhook_id AND d.id IN (
              SELECT q.id FROM webhook_deliveries q JOIN webhooks qw ON qw.id = q.webhook_id AND qw.enabled
               WHERE q.status = 'pending' AND q.next_attempt_at <= now() AND (q.lease_until IS NULL OR q.lease_until < now())
                 AND NOT (q.webhook_id = ANY ($busyWebhooks::uuid[]))
               ORDER BY q.next_attempt_at LIMIT $limit FOR UPDATE OF q SKIP LOCKED)
       RETURNING d.id, d.webhook_id AS "webhookId", d.event_id::text AS "eventId", d.event_type AS "eventType", d.payload,
                 d.event_created_at AS "eventCreatedAt", d.attempts AS attempt, w.url, w.secret_sealed AS "secretSealed"`,
      { limit, leaseSeconds, busyWebhooks },
    );
  }

  /** Deliveries due and not leased, the oldest one's wait, and leases that ran out (the job's backlog, ADR 0145). */
  async backlog(): Promise<{ due: number; oldestDueSeconds: number | null; expiredLeases: number }> {
    const row = await this.sql.one<{ due: number; oldest: number | null; expired: number }>(
      `SELECT count(*) FILTER (WHERE d.lease_until IS NULL OR d.lease_until < now())::int AS due,
              extract(epoch FROM now() - min(d.next_attempt_at) FILTER (WHERE d.lease_until IS NULL OR d.lease_until < now()))::float8 AS oldest,
              count(*) FILTER (WHERE d.lease_until < now())::int AS expired
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id AND w.enabled
        WHERE d.status = 'pending' AND d.next_attempt_at <= now()`,
    );
    return { due: row?.due ?? 0, oldestDueSeconds: row?.oldest ?? null, expiredLeases: row?.expired ?? 0 };
  }

  /**
   * Records one attempt's answer, only if this lease still holds the row (the attempt number fences
   * off a lease that expired and was taken by another instance). Answers whether it was recorded.
   */
  async record(o: AttemptOutcome, tx: Tx): Promise<boolean> {
    const updated = await this.sql.execute(
      `UPDATE webhook_deliveries SET status = $status, lease_until = NULL, next_attempt_at = COALESCE($nextRetryAt, next_attempt_at),
              finished_at = CASE WHEN $status = 'pending' THEN NULL ELSE now() END
        WHERE id = $deliveryId AND attempts = $attempt AND status = 'pending'`,
      { deliveryId: o.deliveryId, attempt: o.attempt, status: o.status, nextRetryAt: o.nextRetryAt },
      tx,
    );
    if (updated !== 1) return false;
    await this.sql.execute(
      `INSERT INTO webhook_attempts (delivery_id, webhook_id, attempt, status_code, error, duration_ms, next_retry_at)
       VALUES ($deliveryId, $webhookId, $attempt, $statusCode, $error, $durationMs, $nextRetryAt)`,
      { deliveryId: o.deliveryId, webhookId: o.webhookId, attempt: o.attempt, statusCode: o.statusCode, error: o.error, durationMs: o.durationMs, nextRetryAt: o.nextRetryAt },
      tx,
    );
    return true;
  }

  /** Attempts of one webhook, newest first. */
  async attempts(webhookId: string, page: PageRequest): Promise<Page<AttemptRecord>> {
    const items = await this.sql.select<AttemptRecord>(
      `SELECT a.id::text AS id, a.delivery_id AS "deliveryId", d.event_id::text AS "eventId", d.event_type AS "eventType", a.attempt,
              d.status AS "deliveryStatus", a.status_code AS "statusCode", a.error, a.duration_ms AS "durationMs",
              a.attempted_at AS "attemptedAt", a.next_retry_at AS "nextRetryAt"
         FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
        WHERE a.webhook_id = $webhookId ORDER BY a.attempted_at DESC, a.id DESC LIMIT $limit OFFSET $offset`,
      { webhookId, limit: page.limit, offset: offsetOf(page) },
    );
    const count = await this.sql.one<{ n: number }>('SELECT count(*)::int AS n FROM webhook_attempts WHERE webhook_id = $webhookId', { webhookId });
    return { items, total: count!.n };
  }

  /** Finished deliveries older than `days` (their events left the outbox long ago): the queue stays small. */
  pruneFinished(days: number): Promise<number> {
    return this.sql.execute(`DELETE FROM webhook_deliveries WHERE status <> 'pending' AND finished_at < now() - make_interval(days => $days)`, { days });
  }
}
