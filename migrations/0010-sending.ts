import type { QueryInterface } from 'sequelize';

/**
 * Sending and attachments (docs/adr/0024-sending-through-jmap.md, 0025-attachments-streamed.md):
 *
 * - email_attachments: what the sync learned about an email's attachments (JMAP `attachments`:
 *   blob id, name, type, size, disposition, content id). Metadata only; the content stays on the mail
 *   server and is streamed from its download URL on request. `position` is the part's place in the
 *   email, so replaying a batch inserts nothing twice. Rows go with their email (ON DELETE CASCADE).
 * - send_idempotency_keys: the outcome of a send per (user, Idempotency-Key) for 24 hours, so a retried
 *   request answers the first result instead of sending again. `pending` while the first request runs.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE email_attachments (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      email_id uuid NOT NULL REFERENCES emails(id) ON DELETE CASCADE,
      position integer NOT NULL,
      blob_id text NOT NULL,
      part_id text,
      name text,
      type text NOT NULL,
      size bigint NOT NULL,
      disposition text,
      cid text,
      is_inline boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT email_attachments_email_position_key UNIQUE (email_id, position)
    );

    CREATE TABLE send_idempotency_keys (
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      key varchar(255) NOT NULL,
      fingerprint text NOT NULL,
      status varchar(16) NOT NULL CHECK (status IN ('pending', 'done')),
      response_status integer,
      response_body jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (user_id, key)
    );
    CREATE INDEX send_idempotency_keys_expires_idx ON send_idempotency_keys (expires_at);
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TABLE IF EXISTS send_idempotency_keys;
    DROP TABLE IF EXISTS email_attachments;
  `);
}
