import type { QueryInterface } from 'sequelize';

/**
 * What the mail sync needs beyond 0001:
 * - a resumable full sync: the checkpoint of the full sync in progress (the Email state read before
 *   it began, the last email id committed, the JMAP account it belongs to) and a generation number,
 *   so that rows the finished full sync did not see again (gone from the server, moved to Trash)
 *   can be removed in one statement;
 * - the addresses that took part in each email, so that a contact created later (by the sync or by
 *   hand) can be linked to the emails it already took part in (docs/contract.md §4.5: an email shows under
 *   every contact that took part).
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    ALTER TABLE mail_sync_states
      ADD COLUMN full_sync_checkpoint jsonb,
      ADD COLUMN sync_generation integer NOT NULL DEFAULT 0;

    ALTER TABLE emails
      ADD COLUMN participants text[] NOT NULL DEFAULT '{}',
      ADD COLUMN sync_generation integer NOT NULL DEFAULT 0;
    CREATE INDEX emails_participants_idx ON emails USING gin (participants);
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP INDEX IF EXISTS emails_participants_idx;
    ALTER TABLE emails DROP COLUMN IF EXISTS participants, DROP COLUMN IF EXISTS sync_generation;
    ALTER TABLE mail_sync_states DROP COLUMN IF EXISTS full_sync_checkpoint, DROP COLUMN IF EXISTS sync_generation;
  `);
}
