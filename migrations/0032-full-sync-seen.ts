import type { QueryInterface } from 'sequelize';

/**
 * A full sync's sweep without a write per email (issue 36, docs/adr/0123-full-sync-sweep.md).
 *
 * Until now every email row carried sync_generation, and a full sync wrote the new generation into every
 * row it saw, so that the rows it did not see (gone from the server, moved to Trash) could be deleted
 * at its end (sync_generation < current). That made a resync of an unchanged mailbox rewrite every row.
 * full_sync_seen holds instead the JMAP ids the full sync in progress has seen (and those another writer
 * stored meanwhile), written in each page's transaction; the sweep deletes the account's emails not in
 * it and clears it. A narrow, durable table: a full sync resumed by another process after a crash
 * still knows what the pages before it saw.
 *
 * Up: an unfinished full sync of 0.3.0 marked what it had seen with the account's generation; those
 * ids are carried over, so it resumes and sweeps as it would have. Then both generation columns go.
 * Down: the columns come back (0 everywhere, which any later full sync of 0.3.0 rewrites); an
 * unfinished full sync goes on under 0.3.0 as generation 1, the rows it has seen marked so (all the
 * account's rows when it began on an empty mailbox, where nothing is swept).
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE full_sync_seen (
      email_account_id uuid NOT NULL REFERENCES email_accounts(id) ON DELETE CASCADE,
      jmap_id text NOT NULL,
      PRIMARY KEY (email_account_id, jmap_id)
    );
    INSERT INTO full_sync_seen (email_account_id, jmap_id)
    SELECT e.email_account_id, e.jmap_id
      FROM emails e JOIN mail_sync_states s ON s.email_account_id = e.email_account_id
     WHERE s.full_sync_checkpoint IS NOT NULL AND e.sync_generation >= s.sync_generation
    ON CONFLICT DO NOTHING;
    ALTER TABLE emails DROP COLUMN sync_generation;
    ALTER TABLE mail_sync_states DROP COLUMN sync_generation;
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    ALTER TABLE mail_sync_states ADD COLUMN sync_generation integer NOT NULL DEFAULT 0;
    ALTER TABLE emails ADD COLUMN sync_generation integer NOT NULL DEFAULT 0;
    UPDATE mail_sync_states SET sync_generation = 1 WHERE full_sync_checkpoint IS NOT NULL;
    UPDATE emails e SET sync_generation = 1
      FROM mail_sync_states s
     WHERE s.email_account_id = e.email_account_id AND s.full_sync_checkpoint IS NOT NULL
       AND (s.full_sync_checkpoint->>'startedEmpty' = 'true'
            OR EXISTS (SELECT 1 FROM full_sync_seen f WHERE f.email_account_id = e.email_account_id AND f.jmap_id = e.jmap_id));
    DROP TABLE full_sync_seen;
  `);
}
