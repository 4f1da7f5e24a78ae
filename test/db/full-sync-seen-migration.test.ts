/**
 * Migration 0032 (docs/adr/0123): a full sync of 0.3.0 left unfinished (a checkpoint, its generation
 * on the rows it saw) is carried over into full_sync_seen, so the release after it resumes and sweeps
 * what 0.3.0 would have; and the way back gives 0.3.0 its generation columns, the rows an unfinished
 * full sync has seen marked with the generation it then runs under.
 */
import { expect } from 'chai';
import { QueryTypes, type Sequelize } from 'sequelize';
import { createMigrator } from '../../src/db/migrator.js';
import { scratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';

const BEFORE = '0031-resync-progress';
const MIGRATION = '0032-full-sync-seen';

describe('migration 0032: what a full sync has seen, beside the rows', function () {
  this.timeout(120_000);
  let scratch: ScratchDatabase;
  let db: Sequelize;

  before(async () => {
    scratch = await scratchDatabase('crm_full_sync_seen');
    db = scratch.db;
  });

  after(() => scratch?.drop());

  const rows = <T extends object>(sql: string, bind: unknown[] = []) => db.query<T>(sql, { bind, type: QueryTypes.SELECT });
  const value = async <T>(sql: string, bind: unknown[] = []): Promise<T> => (await rows<{ v: T }>(sql, bind))[0].v;

  /** An account with four emails: `seen` of them carry `generation`, the others the one before. */
  async function account(name: string, checkpoint: object | null, generation: number, seen: number): Promise<string> {
    const user = await value<string>('INSERT INTO users (username) VALUES ($1) RETURNING id::text AS v', [name]);
    const id = await value<string>(`INSERT INTO email_accounts (user_id, email, email_password, jmap_account_id) VALUES ($1, $2, 'v1:x', $2) RETURNING id::text AS v`, [
      user,
      `${name}@x.test`,
    ]);
    await db.query('INSERT INTO mail_sync_states (email_account_id, full_sync_checkpoint, sync_generation) VALUES ($1, $2, $3)', {
      bind: [id, checkpoint === null ? null : JSON.stringify(checkpoint), generation],
    });
    const contact = await value<string>(`INSERT INTO contacts (user_id, email_account_id, email) VALUES ($1, $2, 'ana@c.test') RETURNING id::text AS v`, [user, id]);
    for (let i = 0; i < 4; i++) {
      await db.query(`INSERT INTO emails (user_id, email_account_id, contact_id, jmap_id, subject, sync_generation) VALUES ($1, $2, $3, $4, 'x', $5)`, {
        bind: [user, id, contact, `M${i}`, i < seen ? generation : generation - 1],
      });
    }
    return id;
  }

  it('carries an unfinished full sync of 0.3.0 over, and gives 0.3.0 its generations back on the way down', async () => {
    await createMigrator(db).up({ to: BEFORE });
    const paging = await account('paging', { state: '5', anchor: 'M1', jmapAccountId: 'paging@x.test' }, 3, 2);
    const idle = await account('idle', null, 3, 4);

    await createMigrator(db).up({ to: MIGRATION });
    const seen = await rows<{ account: string; jmap_id: string }>('SELECT email_account_id::text AS account, jmap_id FROM full_sync_seen ORDER BY 1, 2');
    expect(seen).to.deep.equal([
      { account: paging, jmap_id: 'M0' },
      { account: paging, jmap_id: 'M1' },
    ]);
    expect(await value<number>("SELECT count(*)::int AS v FROM information_schema.columns WHERE column_name = 'sync_generation'")).to.equal(0);

    // The release after it: the sync of `paging` went on and saw M2; a first sync of an empty mailbox
    // (startedEmpty: it records nothing seen) is half way through.
    await db.query("INSERT INTO full_sync_seen (email_account_id, jmap_id) VALUES ($1, 'M2')", { bind: [paging] });
    const user = await value<string>("INSERT INTO users (username) VALUES ('first') RETURNING id::text AS v");
    const first = await value<string>(
      `INSERT INTO email_accounts (user_id, email, email_password, jmap_account_id) VALUES ($1, 'first@x.test', 'v1:x', 'first@x.test') RETURNING id::text AS v`,
      [user],
    );
    const checkpoint = { state: '1', anchor: 'M0', jmapAccountId: 'first@x.test', startedEmpty: true };
    await db.query('INSERT INTO mail_sync_states (email_account_id, full_sync_checkpoint) VALUES ($1, $2)', { bind: [first, JSON.stringify(checkpoint)] });
    const contact = await value<string>(`INSERT INTO contacts (user_id, email_account_id, email) VALUES ($1, $2, 'ana@c.test') RETURNING id::text AS v`, [user, first]);
    await db.query(`INSERT INTO emails (user_id, email_account_id, contact_id, jmap_id, subject) VALUES ($1, $2, $3, 'M0', 'x')`, { bind: [user, first, contact] });

    await createMigrator(db).down({ to: MIGRATION });
    const generations = await rows<{ account: string; jmap_id: string; g: number; state_g: number }>(
      `SELECT e.email_account_id::text AS account, e.jmap_id, e.sync_generation AS g, s.sync_generation AS state_g
         FROM emails e JOIN mail_sync_states s ON s.email_account_id = e.email_account_id ORDER BY 1, 2`,
    );
    const of = (id: string) => generations.filter((r) => r.account === id).map((r) => [r.jmap_id, r.g, r.state_g]);
    // 0.3.0 resumes `paging` as generation 1 and sweeps below it: M3, which it has not seen, unless it sees it now.
    expect(of(paging)).to.deep.equal([
      ['M0', 1, 1],
      ['M1', 1, 1],
      ['M2', 1, 1],
      ['M3', 0, 1],
    ]);
    expect(of(idle)).to.deep.equal([
      ['M0', 0, 0],
      ['M1', 0, 0],
      ['M2', 0, 0],
      ['M3', 0, 0],
    ]);
    // Every row of a first sync is one it wrote: none is swept when 0.3.0 finishes it.
    expect(of(first)).to.deep.equal([['M0', 1, 1]]);
    expect(await value<string | null>("SELECT to_regclass('full_sync_seen')::text AS v")).to.equal(null);
    await createMigrator(db).up({ to: MIGRATION });
  });
});
