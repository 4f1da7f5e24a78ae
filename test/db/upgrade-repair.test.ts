/**
 * Migration 0018 on a database written by the release before it, after an ownership hand-over that
 * raced a sync (the state the outside review reproduced): contacts of one account stored twice under
 * the old and the new owner, emails and links under the old owner's copy, an orphan link. The upgrade
 * merges, corrects and removes, counts each repair in one audit entry, and then holds the keys.
 */
import { scratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';
import { expect } from 'chai';
import { QueryTypes, type Sequelize } from 'sequelize';
import { createMigrator } from '../../src/db/migrator.js';

const BEFORE_KEYS = '0017-pending-read-index';

describe('migration 0018: upgrading a database the hand-over race corrupted', function () {
  this.timeout(120_000);
  let scratch: ScratchDatabase;
  let db: Sequelize;

  before(async () => {
    scratch = await scratchDatabase('crm_upgrade');
    db = scratch.db;
  });

  after(() => scratch?.drop());

  const value = async <T>(sql: string, bind: unknown[] = []): Promise<T> => (await db.query<{ v: T }>(sql, { bind, type: QueryTypes.SELECT }))[0].v;

  it('merges duplicate contacts with their mail, links and notes, corrects owners, removes orphans, and counts it all', async () => {
    await createMigrator(db).up({ to: BEFORE_KEYS });
    const former = await value<string>("INSERT INTO users (username) VALUES ('former') RETURNING id::text AS v");
    const owner = await value<string>("INSERT INTO users (username) VALUES ('new-owner') RETURNING id::text AS v");
    const account = await value<string>(
      `INSERT INTO email_accounts (user_id, email, email_password, jmap_account_id) VALUES ($1, 'team@x.test', 'v1:x', 'j') RETURNING id::text AS v`,
      [former],
    );
    // The hand-over as the release before it did it: the member rows and every owner column move.
    await db.transaction(async (transaction) => {
      const bind = [account, owner];
      await db.query(`UPDATE email_account_members SET role = 'editor' WHERE email_account_id = $1`, { bind: [account], transaction });
      await db.query(`INSERT INTO email_account_members (email_account_id, user_id, role, can_read, can_send) VALUES ($1, $2, 'owner', true, true)`, { bind, transaction });
      await db.query('UPDATE email_accounts SET user_id = $2 WHERE id = $1', { bind, transaction });
    });
    // ... and what the sync's next batch wrote under the former owner meanwhile (the triggers of 0013/0016
    // are switched off, as a restore with user triggers off, the other way in, would have them).
    await db.transaction(async (transaction) => {
      const q = (sql: string, bind: unknown[]) => db.query<{ v: string }>(sql, { bind, type: QueryTypes.SELECT, transaction });
      await db.query('SET LOCAL session_replication_role = replica', { transaction });
      const keeper = (await q(`INSERT INTO contacts (user_id, email_account_id, email, notes) VALUES ($1, $2, 'ana@c.test', 'VIP') RETURNING id::text AS v`, [owner, account]))[0]
        .v;
      const stale = (
        await q(`INSERT INTO contacts (user_id, email_account_id, email, name, notes) VALUES ($1, $2, 'ana@c.test', 'Ana', 'volať ráno') RETURNING id::text AS v`, [
          former,
          account,
        ])
      )[0].v;
      const lone = (await q(`INSERT INTO contacts (user_id, email_account_id, email) VALUES ($1, $2, 'bob@c.test') RETURNING id::text AS v`, [former, account]))[0].v;
      for (const [i, contact] of [stale, stale, lone, keeper].entries()) {
        const email = (
          await q(
            `INSERT INTO emails (user_id, email_account_id, contact_id, jmap_id, subject, is_read, date) VALUES ($1, $2, $3, $4, 'x', false, now()) RETURNING id::text AS v`,
            [i < 3 ? former : owner, account, contact, `M${i}`],
          )
        )[0].v;
        await q(`INSERT INTO email_contacts (email_id, contact_id, email_date, is_read) VALUES ($1, $2, now(), false) RETURNING email_id::text AS v`, [email, contact]);
      }
      await q(`INSERT INTO email_contacts (email_id, contact_id, email_date, is_read) VALUES (gen_random_uuid(), $1, now(), false) RETURNING email_id::text AS v`, [keeper]);
    });

    await createMigrator(db).up();

    const contacts = await db.query<{ email: string; user_id: string; name: string | null; notes: string | null }>(
      'SELECT email, user_id::text, name, notes FROM contacts WHERE email_account_id = $1 ORDER BY email',
      { bind: [account], type: QueryTypes.SELECT },
    );
    expect(contacts).to.deep.equal([
      { email: 'ana@c.test', user_id: owner, name: 'Ana', notes: 'VIP\n\nvolať ráno' },
      { email: 'bob@c.test', user_id: owner, name: null, notes: null },
    ]);
    const anaId = await value<string>("SELECT id::text AS v FROM contacts WHERE email = 'ana@c.test'");
    expect(await value<number>('SELECT count(*)::int AS v FROM emails WHERE contact_id = $1', [anaId])).to.equal(3);
    expect(await value<number>('SELECT count(*)::int AS v FROM email_contacts WHERE contact_id = $1', [anaId])).to.equal(3);
    expect(await value<number>('SELECT count(*)::int AS v FROM emails WHERE user_id <> $1', [owner])).to.equal(0);
    expect(await value<number>('SELECT count(*)::int AS v FROM email_contacts l WHERE NOT EXISTS (SELECT 1 FROM emails e WHERE e.id = l.email_id)')).to.equal(0);

    const details = await value<Record<string, unknown>>("SELECT details AS v FROM audit_logs WHERE action = 'schema.repaired'");
    expect(details).to.include({
      duplicateContactsMerged: 1,
      contactOwnersCorrected: 1,
      emailOwnersCorrected: 3,
      linksWithoutParent: 1,
      emailsWithoutAccount: 0,
      emailsWithoutContact: 0,
    });

    // From now on the keys hold: the former owner cannot be written again.
    const refused = await db.query(`INSERT INTO contacts (user_id, email_account_id, email) VALUES ($1, $2, 'late@c.test')`, { bind: [former, account] }).then(
      () => 'stored',
      (e: { parent?: { code?: string } }) => e.parent?.code,
    );
    expect(refused).to.equal('23503');
  });
});
