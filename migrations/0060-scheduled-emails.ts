import type { QueryInterface } from 'sequelize';

/**
 * Scheduled send and undo (issue 47), attachments of drafts (docs/adr/0146-scheduled-send.md). Two new
 * tables, nothing existing is touched (no lock on a large table, no rewrite).
 *
 * - scheduled_emails: a send request kept until its send_at. The scheduled-sends job of every serve
 *   claims due rows with a lease (status 'sending', lease_until, attempts as the fence) and SKIP
 *   LOCKED; message_id is fixed when it is scheduled and jmap_email_id is recorded before the
 *   submission, so a recovery after a crash asks the mail server whether it went, never sends twice.
 *   request: the send request as the sender takes it (recipients, subject, text, html, signature,
 *   replyAll; a template already rendered). The user cascades (a deleted user's sends go with them);
 *   the mailbox is set null (the row fails with its reason); draft_id names a draft holding the text
 *   of one that did not go.
 * - email_attachment_files: files kept in the file storage (its `attachments` store, src/storage) for a
 *   draft or a scheduled email; a row whose owner went (sent, deleted, cancelled: set null) is an orphan the
 *   attachment-cleanup job removes with its file. Backups carry the files their rows name.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE scheduled_emails (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      email_account_id uuid REFERENCES email_accounts(id) ON DELETE SET NULL,
      kind text NOT NULL CHECK (kind IN ('new', 'reply', 'forward')),
      email_id uuid,
      request jsonb NOT NULL,
      send_at timestamptz NOT NULL,
      status text NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'sending', 'sent', 'failed', 'cancelled')),
      message_id text NOT NULL CHECK (char_length(message_id) <= 998),
      next_attempt_at timestamptz NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      lease_until timestamptz,
      jmap_email_id text,
      submitted_at timestamptz,
      sent_at timestamptz,
      sent_email_id uuid,
      failure_code text,
      failure_message text,
      draft_id uuid REFERENCES email_drafts(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX scheduled_emails_due ON scheduled_emails (next_attempt_at) WHERE status IN ('scheduled', 'sending');
    CREATE INDEX scheduled_emails_user ON scheduled_emails (user_id, send_at DESC, id);

    CREATE TABLE email_attachment_files (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      storage_key text NOT NULL UNIQUE,
      draft_id uuid REFERENCES email_drafts(id) ON DELETE SET NULL,
      scheduled_email_id uuid REFERENCES scheduled_emails(id) ON DELETE SET NULL,
      name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
      type text NOT NULL CHECK (char_length(type) <= 255),
      size bigint NOT NULL CHECK (size >= 0),
      sha256 text NOT NULL,
      position integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      CHECK (draft_id IS NULL OR scheduled_email_id IS NULL)
    );
    CREATE INDEX email_attachment_files_draft ON email_attachment_files (draft_id, position) WHERE draft_id IS NOT NULL;
    CREATE INDEX email_attachment_files_scheduled ON email_attachment_files (scheduled_email_id, position) WHERE scheduled_email_id IS NOT NULL;
    CREATE INDEX email_attachment_files_orphans ON email_attachment_files (created_at) WHERE draft_id IS NULL AND scheduled_email_id IS NULL;
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TABLE email_attachment_files;
    DROP TABLE scheduled_emails;
  `);
}
