import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';
import { offsetOf, type Page, type PageRequest } from '../shared/pagination.js';

/** A webhook as it may be shown: never its secret. */
export interface WebhookRecord {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  description: string | null;
  disabledReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface WebhookChanges {
  url?: string;
  events?: string[];
  enabled?: boolean;
  description?: string | null;
  secretSealed?: string;
  disabledReason?: string | null;
}

const COLUMNS = `w.id, w.url, w.events, w.enabled, w.description, w.disabled_reason AS "disabledReason", w.created_at AS "createdAt", w.updated_at AS "updatedAt"`;

/** The webhooks table (migration 0045): what the admin routes read and write. */
export class WebhookRepository {
  constructor(private readonly sql: Sql) {}

  /** The id comes first: the secret is sealed bound to its row. */
  async insert(values: { id: string; url: string; events: string[]; description: string | null; secretSealed: string }, tx?: Tx): Promise<WebhookRecord> {
    const row = await this.sql.one<WebhookRecord>(
      `INSERT INTO webhooks AS w (id, url, events, description, secret_sealed) VALUES ($id, $url, $events::text[], $description, $secretSealed) RETURNING ${COLUMNS}`,
      values,
      tx,
    );
    return row!;
  }

  async list(page: PageRequest): Promise<Page<WebhookRecord>> {
    const items = await this.sql.select<WebhookRecord>(`SELECT ${COLUMNS} FROM webhooks w ORDER BY w.created_at DESC, w.id LIMIT $limit OFFSET $offset`, {
      limit: page.limit,
      offset: offsetOf(page),
    });
    const count = await this.sql.one<{ n: number }>('SELECT count(*)::int AS n FROM webhooks');
    return { items, total: count!.n };
  }

  findById(id: string, tx?: Tx): Promise<WebhookRecord | undefined> {
    return this.sql.one<WebhookRecord>(`SELECT ${COLUMNS} FROM webhooks w WHERE w.id = $id`, { id }, tx);
  }

  /**
   * Applies the given fields. Enabling again or changing the events moves `since`: only events from
   * now on are delivered, nothing the outbox still holds from before is replayed.
   */
  async update(id: string, changes: WebhookChanges, tx?: Tx): Promise<WebhookRecord | undefined> {
    return this.sql.one<WebhookRecord>(
      `UPDATE webhooks w SET
         url = COALESCE($url, w.url),
         events = COALESCE($events::text[], w.events),
         enabled = COALESCE($enabled, w.enabled),
         description = CASE WHEN $setDescription THEN $description ELSE w.description END,
         secret_sealed = COALESCE($secretSealed, w.secret_sealed),
         disabled_reason = CASE WHEN $enabled::boolean IS TRUE THEN NULL ELSE w.disabled_reason END,
         since = CASE WHEN ($enabled::boolean IS TRUE AND NOT w.enabled) OR ($events::text[] IS NOT NULL AND $events::text[] IS DISTINCT FROM w.events)
                      THEN now() ELSE w.since END,
         updated_at = now()
       WHERE w.id = $id RETURNING ${COLUMNS}`,
      {
        id,
        url: changes.url ?? null,
        events: changes.events ?? null,
        enabled: changes.enabled ?? null,
        setDescription: changes.description !== undefined,
        description: changes.description ?? null,
        secretSealed: changes.secretSealed ?? null,
      },
      tx,
    );
  }

  /** A receiver answered 410 Gone: it wants no more (re-enabled only by an administrator). */
  disable(id: string, reason: string, tx?: Tx): Promise<number> {
    return this.sql.execute(`UPDATE webhooks SET enabled = false, disabled_reason = $reason, updated_at = now() WHERE id = $id AND enabled`, { id, reason }, tx);
  }

  async delete(id: string, tx?: Tx): Promise<WebhookRecord | undefined> {
    return this.sql.one<WebhookRecord>(`DELETE FROM webhooks w WHERE w.id = $id RETURNING ${COLUMNS}`, { id }, tx);
  }
}
