import type { QueryInterface } from 'sequelize';

/**
 * Progress of `crm-admin sync resync` (src/sync/resync-service.ts), one row per email account: where
 * the pass through the account's mail stands, so that a resync stopped by Ctrl-C, SIGTERM, a crash or
 * --max-pages continues after the last page it committed instead of starting over. Each page's emails
 * and this row commit in one transaction.
 * - anchor: the JMAP id of the last email of the last committed page (NULL: from the top); the next
 *   page is the Email/query page after it, in the full sync's order (newest first).
 * - jmap_account_id: the mailbox the anchor belongs to; a re-linked account starts over.
 * - finished_at: set when the pass reached the end; a finished resync starts over only with --restart.
 * A new, empty table: no lock on anything that exists.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE resync_progress (
      email_account_id uuid PRIMARY KEY REFERENCES email_accounts(id) ON DELETE CASCADE,
      jmap_account_id text NOT NULL,
      anchor text,
      pages_done integer NOT NULL DEFAULT 0,
      emails_done integer NOT NULL DEFAULT 0,
      started_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz
    );
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query('DROP TABLE IF EXISTS resync_progress');
}
