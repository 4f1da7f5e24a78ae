import type { QueryInterface } from 'sequelize';

/**
 * Follow-up reminders (ADR 0119): one open follow-up per contact and staff user.
 *
 * - user_id is the follow-up's owner (private to them), not the contact's owner; contact_id is the
 *   contact of one email account. Both cascade: a contact deleted (by hand, by an erasure, with its
 *   account) or a user deleted takes its follow-ups along.
 * - updated_at is when the follow-up was last set (PUT): mail from the contact dated after it marks
 *   the follow-up answered (computed when read, through email_contacts_contact_date_idx).
 * - notified_at: the due job's claim. NULL until a job claimed it after due_at; a PUT clears it again,
 *   so a re-set follow-up is notified again. The partial index holds only unclaimed rows, so the
 *   job's look-up stays small however many old follow-ups are kept.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE follow_ups (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
      due_at timestamptz NOT NULL,
      note text CHECK (note IS NULL OR char_length(note) <= 2000),
      notified_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT follow_ups_user_contact_key UNIQUE (user_id, contact_id)
    );
    -- The owner's list in due order (GET /api/follow-ups).
    CREATE INDEX follow_ups_user_due_idx ON follow_ups (user_id, due_at, id);
    -- A contact's deletion finds its follow-ups (the cascade).
    CREATE INDEX follow_ups_contact_idx ON follow_ups (contact_id);
    -- The due job: unclaimed rows only, in due order.
    CREATE INDEX follow_ups_pending_due_idx ON follow_ups (due_at) WHERE notified_at IS NULL;
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query('DROP TABLE IF EXISTS follow_ups');
}
