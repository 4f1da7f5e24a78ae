import type { QueryInterface } from 'sequelize';

/**
 * Signed webhooks (issue 48, docs/adr/0134-webhooks.md): administrators register receivers; every
 * serve copies new events of the outbox (migration 0021) into webhook_deliveries, one row per webhook
 * and event (unique), and works the due rows off with a lease (lease_until, FOR UPDATE SKIP LOCKED),
 * the HTTP call outside any transaction. A delivery keeps its own copy of the event (the outbox keeps
 * events for minutes only) and the attempts made, for GET /api/admin/webhooks/:id/deliveries.
 *
 * secret_sealed: the signing secret sealed with the SecretBox of the mail passwords (bound to the
 * row), never in clear. since: events from this time on are delivered (creation, re-enabling or a
 * change of events moves it), so re-enabling does not replay what the outbox still holds.
 *
 * New, empty tables: no lock on anything that exists.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE webhooks (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      url text NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2000),
      events text[] NOT NULL CHECK (cardinality(events) > 0),
      enabled boolean NOT NULL DEFAULT true,
      description text CHECK (char_length(description) <= 500),
      secret_sealed text NOT NULL,
      since timestamptz NOT NULL DEFAULT now(),
      disabled_reason text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE webhook_deliveries (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      webhook_id uuid NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
      event_id bigint NOT NULL,
      event_type text NOT NULL,
      payload jsonb NOT NULL,
      event_created_at timestamptz NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      lease_until timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz,
      UNIQUE (webhook_id, event_id)
    );
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';

    CREATE TABLE webhook_attempts (
      id bigserial PRIMARY KEY,
      delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
      webhook_id uuid NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
      attempt integer NOT NULL,
      status_code integer,
      error text,
      duration_ms integer NOT NULL,
      next_retry_at timestamptz,
      attempted_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX webhook_attempts_webhook ON webhook_attempts (webhook_id, attempted_at DESC, id DESC);
    CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id);
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TABLE webhook_attempts;
    DROP TABLE webhook_deliveries;
    DROP TABLE webhooks;
  `);
}
