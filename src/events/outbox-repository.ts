import type { TableRow } from '../db/rows.js';
import type { Sql } from '../db/sql.js';
import type { OutboxEvent, OutboxEventType } from './event-types.js';

/**
 * Must match CHANNEL in migrations/0021-events-outbox.ts: the crm_events_* trigger functions (0021,
 * crm_events_contacts redefined in 0030) insert the rows read here and pg_notify this channel.
 */
export const EVENTS_CHANNEL = 'crm_events';

type EventRow = TableRow<'events', 'id' | 'type' | 'email_account_id' | 'user_id' | 'payload' | 'created_at', { type: OutboxEventType; payload: Record<string, unknown> }>;

/** Rows after a cursor, and the oldest transaction still running when they were read. */
export interface OutboxPage {
  events: OutboxEvent[];
  /** pg_snapshot_xmin of the read: every transaction with a lower id had ended by then. */
  xmin: bigint;
  /** pg_snapshot_xmax of the read: no transaction running then has an id this high. */
  xmax: bigint;
}

const toEvent = (r: EventRow): OutboxEvent => ({
  id: Number(r.id),
  type: r.type,
  emailAccountId: r.email_account_id,
  userId: r.user_id,
  payload: r.payload,
  createdAt: r.created_at,
});

const COLUMNS = 'e.id::text AS id, e.type, e.email_account_id, e.user_id, e.payload, e.created_at';

/** The events outbox (migration 0021): read by the API instances' hubs, pruned by every serve. */
export class OutboxRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Up to `limit` events after `after`, in id order, with the snapshot they were read in (one
   * statement, so the two agree): the hub tells a gap left by a transaction still running from one
   * left by a rollback with it.
   */
  async after(after: number, limit: number): Promise<OutboxPage> {
    const rows = await this.sql.select<EventRow & { xmin: string; xmax: string }>(
      `WITH snap AS (SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin, pg_snapshot_xmax(pg_current_snapshot())::text AS xmax)
       SELECT snap.xmin, snap.xmax, ${COLUMNS}
         FROM snap LEFT JOIN LATERAL (SELECT * FROM events WHERE id > $after ORDER BY id LIMIT $limit) e ON true
        ORDER BY e.id`,
      { after, limit },
    );
    const first = rows[0];
    return { events: rows.filter((r) => r.id !== null).map(toEvent), xmin: BigInt(first.xmin), xmax: BigInt(first.xmax) };
  }

  /** Events in (after, upTo], in id order: a Last-Event-ID replay. */
  async between(after: number, upTo: number, limit: number): Promise<OutboxEvent[]> {
    const rows = await this.sql.select<EventRow>(`SELECT ${COLUMNS} FROM events e WHERE e.id > $after AND e.id <= $upTo ORDER BY e.id LIMIT $limit`, { after, upTo, limit });
    return rows.map(toEvent);
  }

  /** The oldest id still kept, and the last id handed out (0 before the first event). */
  async bounds(): Promise<{ oldest: number | null; last: number }> {
    const row = await this.sql.one<{ oldest: string | null; last: string }>(
      `SELECT (SELECT min(id) FROM events)::text AS oldest,
              (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM events_id_seq)::text AS last`,
    );
    return { oldest: row!.oldest === null ? null : Number(row!.oldest), last: Number(row!.last) };
  }

  /** The newest event id (0 when empty): where a hub starts. */
  async newest(): Promise<number> {
    const row = await this.sql.one<{ id: string | null }>('SELECT max(id)::text AS id FROM events');
    return Number(row!.id ?? 0);
  }

  /** Deletes events older than `olderThanSeconds` or more than `keep` ids behind the newest; answers how many. */
  prune(olderThanSeconds: number, keep: number): Promise<number> {
    return this.sql.execute(
      `DELETE FROM events
        WHERE created_at < clock_timestamp() - make_interval(secs => $olderThanSeconds)
           OR id <= (SELECT max(id) FROM events) - $keep`,
      { olderThanSeconds, keep },
    );
  }

  /** Events past their keep time that a prune would delete, and for how long the oldest has been (the pruner's backlog, ADR 0145). */
  async backlog(keepSeconds: number): Promise<{ due: number; oldestDueSeconds: number | null; expiredLeases: number }> {
    const row = await this.sql.one<{ due: number; oldest: number | null }>(
      `SELECT count(*)::int AS due, extract(epoch FROM now() - min(created_at) - make_interval(secs => $keepSeconds))::float8 AS oldest
         FROM events WHERE created_at < now() - make_interval(secs => $keepSeconds)`,
      { keepSeconds },
    );
    return { due: row?.due ?? 0, oldestDueSeconds: row?.oldest ?? null, expiredLeases: 0 };
  }
}
