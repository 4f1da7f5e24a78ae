import type { QueryInterface } from 'sequelize';

/**
 * Writing mail from the CRM (issue 47): signatures, templates and drafts kept on the server. Three new
 * tables, nothing existing is touched (no lock on a large table, no rewrite).
 *
 * - email_signatures: the caller's own signature per mailbox they may send from (one per user and
 *   account: each member of a team mailbox has their own). Both cascade with the user and the account.
 * - email_templates: a user's templates; `shared` ones every staff member lists and uses. The author
 *   cascades: a deleted user's templates go with them (shared ones included: nobody else may edit them
 *   but an admin, who can recreate what is needed).
 * - email_drafts: what a user is writing, private to them; reply_to_email_id is set null when that
 *   email goes (retention, erasure), so the draft survives as a new message. Recipients are jsonb
 *   arrays of {email, name?} as the send request takes them.
 *
 * - send_idempotency_keys.status gains 'failed': a send whose outcome is unknown keeps its error as the
 *   answer to its retries (one cause, one error code). Only the CHECK changes (a scan of that small,
 *   24-hour table under its lock; no rewrite); down removes such rows first.
 *
 * The CHECKs bound the sizes the request schemas bound (src/signatures, src/templates, src/drafts).
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE email_signatures (
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      email_account_id uuid NOT NULL REFERENCES email_accounts(id) ON DELETE CASCADE,
      text text NOT NULL CHECK (char_length(text) <= 10000),
      html text CHECK (html IS NULL OR char_length(html) <= 50000),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, email_account_id)
    );
    -- An account's deletion finds its signatures (the cascade).
    CREATE INDEX email_signatures_account_idx ON email_signatures (email_account_id);

    CREATE TABLE email_templates (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
      subject text NOT NULL CHECK (char_length(subject) <= 998),
      text text NOT NULL CHECK (char_length(text) <= 100000),
      html text CHECK (html IS NULL OR char_length(html) <= 200000),
      shared boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    -- The caller's list: their own and every shared one, by name.
    CREATE INDEX email_templates_user_idx ON email_templates (user_id, name, id);
    CREATE INDEX email_templates_shared_idx ON email_templates (name, id) WHERE shared;

    CREATE TABLE email_drafts (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      email_account_id uuid NOT NULL REFERENCES email_accounts(id) ON DELETE CASCADE,
      reply_to_email_id uuid REFERENCES emails(id) ON DELETE SET NULL,
      to_recipients jsonb NOT NULL DEFAULT '[]',
      cc_recipients jsonb NOT NULL DEFAULT '[]',
      bcc_recipients jsonb NOT NULL DEFAULT '[]',
      subject text NOT NULL DEFAULT '' CHECK (char_length(subject) <= 998),
      text text NOT NULL DEFAULT '' CHECK (char_length(text) <= 1000000),
      html text CHECK (html IS NULL OR char_length(html) <= 1000000),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    -- The author's list, newest change first.
    CREATE INDEX email_drafts_user_idx ON email_drafts (user_id, updated_at DESC, id);
    CREATE INDEX email_drafts_account_idx ON email_drafts (email_account_id);
    CREATE INDEX email_drafts_reply_idx ON email_drafts (reply_to_email_id) WHERE reply_to_email_id IS NOT NULL;

    ALTER TABLE send_idempotency_keys DROP CONSTRAINT IF EXISTS send_idempotency_keys_status_check;
    ALTER TABLE send_idempotency_keys ADD CONSTRAINT send_idempotency_keys_status_check CHECK (status IN ('pending', 'done', 'failed'));
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DELETE FROM send_idempotency_keys WHERE status = 'failed';
    ALTER TABLE send_idempotency_keys DROP CONSTRAINT IF EXISTS send_idempotency_keys_status_check;
    ALTER TABLE send_idempotency_keys ADD CONSTRAINT send_idempotency_keys_status_check CHECK (status IN ('pending', 'done'));
    DROP TABLE IF EXISTS email_drafts;
    DROP TABLE IF EXISTS email_templates;
    DROP TABLE IF EXISTS email_signatures;
  `);
}
