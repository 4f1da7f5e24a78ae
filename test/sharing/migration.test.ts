import { scratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';
import { expect } from 'chai';
import { QueryTypes, type Sequelize } from 'sequelize';
import { createMigrator } from '../../src/db/migrator.js';

const BEFORE_SHARING = '0007-email-account-names';

/** Migration 0009 on a scratch database: existing accounts get their owner row, the invariants hold, down restores 0007's schema. */
describe('migration 0009: email_account_members', function () {
  this.timeout(60_000);
  let scratch: ScratchDatabase;
  let db: Sequelize;

  // A database of its own for every test: each one migrates it from before sharing.
  beforeEach(async () => {
    scratch = await scratchDatabase('crm_sharing');
    db = scratch.db;
  });

  afterEach(() => scratch?.drop());

  const rows = <T extends object>(sql: string, bind: unknown[] = []) => db.query<T>(sql, { bind, type: QueryTypes.SELECT });
  const one = async (sql: string, bind: unknown[] = []) => (await rows<{ v: unknown }>(sql, bind))[0].v;
  async function fails(sql: string): Promise<string> {
    try {
      await db.transaction(async (t) => {
        // The owner checks are deferred to the commit; here they run at the statement (same check, no commit-time noise).
        await db.query('SET CONSTRAINTS ALL IMMEDIATE', { transaction: t });
        await db.query(sql, { transaction: t });
      });
    } catch (err) {
      return String(err);
    }
    throw new Error(`expected to fail: ${sql}`);
  }
  const indexes = async () => (await rows<{ name: string }>("SELECT indexname AS name FROM pg_indexes WHERE tablename IN ('contacts', 'emails')")).map((r) => r.name);

  let jana: string;
  let peter: string;
  let account: string;

  /** Jana's and Peter's accounts (Jana's with a contact and an email) made before sharing, then every migration up. */
  async function migratedFromBeforeSharing(): Promise<void> {
    await createMigrator(db).up({ to: BEFORE_SHARING });
    jana = (await one("INSERT INTO users (username) VALUES ('jana') RETURNING id::text AS v")) as string;
    peter = (await one("INSERT INTO users (username) VALUES ('peter') RETURNING id::text AS v")) as string;
    account = (await one(
      `INSERT INTO email_accounts (user_id, email, email_password, jmap_account_id, is_primary) VALUES ('${jana}', 'jana@x.test', 'v1:x', 'j', true) RETURNING id::text AS v`,
    )) as string;
    await db.query(`INSERT INTO email_accounts (user_id, email, email_password, jmap_account_id) VALUES ('${peter}', 'peter@x.test', 'v1:x', 'p')`);
    const contact = (await one(`INSERT INTO contacts (user_id, email_account_id, email) VALUES ('${jana}', '${account}', 'k@x.test') RETURNING id::text AS v`)) as string;
    await db.query(`INSERT INTO emails (user_id, email_account_id, contact_id, jmap_id) VALUES ('${jana}', '${account}', '${contact}', 'M1')`);
    await createMigrator(db).up();
  }

  it('turns every existing single-owner account into an owner row', async () => {
    await migratedFromBeforeSharing();
    const members = await rows<{ email: string; username: string; role: string; can_read: boolean; can_send: boolean }>(
      `SELECT a.email, u.username, m.role, m.can_read, m.can_send FROM email_account_members m
         JOIN email_accounts a ON a.id = m.email_account_id JOIN users u ON u.id = m.user_id ORDER BY a.email`,
    );
    expect(members).to.deep.equal([
      { email: 'jana@x.test', username: 'jana', role: 'owner', can_read: true, can_send: true },
      { email: 'peter@x.test', username: 'peter', role: 'owner', can_read: true, can_send: true },
    ]);
    expect(await indexes()).to.include.members(['contacts_account_last_email_idx', 'contacts_account_name_idx', 'emails_account_date_idx', 'emails_account_unread_date_idx']);
    expect(await indexes()).to.not.include.members(['contacts_user_last_email_idx', 'emails_user_date_idx']);
  });

  it('gives a new account its owner row, whoever inserts it, and keeps exactly one owner that matches the account', async () => {
    await migratedFromBeforeSharing();
    const other = (await one(
      `INSERT INTO email_accounts (user_id, email, email_password, jmap_account_id) VALUES ('${peter}', 'second@x.test', 'v1:x', 's') RETURNING id::text AS v`,
    )) as string;
    expect(await one(`SELECT role AS v FROM email_account_members WHERE email_account_id = '${other}' AND user_id = '${peter}'`)).to.equal('owner');

    expect(await fails(`DELETE FROM email_account_members WHERE email_account_id = '${account}'`)).to.match(/no owner row/);
    expect(await fails(`INSERT INTO email_account_members (email_account_id, user_id, role, can_read, can_send) VALUES ('${account}', '${peter}', 'owner', true, true)`)).to.match(
      /unique|duplicate/i,
    );
    expect(await fails(`UPDATE email_accounts SET user_id = '${peter}' WHERE id = '${account}'`)).to.match(/no owner row/);
    expect(await fails(`UPDATE email_account_members SET role = 'editor' WHERE email_account_id = '${account}'`)).to.match(/check constraint|no owner row/);
    expect(await fails(`INSERT INTO email_account_members (email_account_id, user_id, role, can_read, can_send) VALUES ('${account}', '${peter}', 'viewer', true, true)`)).to.match(
      /viewer_rights/,
    );

    // A share of another user is fine; it goes with the account.
    await db.query(`INSERT INTO email_account_members (email_account_id, user_id, role) VALUES ('${account}', '${peter}', 'editor')`);
    await db.query(`DELETE FROM email_accounts WHERE id = '${account}'`);
    expect(await one(`SELECT count(*)::int AS v FROM email_account_members WHERE email_account_id = '${account}'`)).to.equal(0);
  });

  it('goes down to the schema before sharing (its indexes back, the data kept) and up again', async () => {
    await migratedFromBeforeSharing();
    const accountsBefore = await one('SELECT count(*)::int AS v FROM email_accounts');
    await createMigrator(db).down({ to: '0009-email-account-members' });
    expect(await one("SELECT to_regclass('email_account_members')::text AS v")).to.equal(null);
    expect(await indexes()).to.include.members([
      'contacts_user_last_email_idx',
      'contacts_user_name_idx',
      'contacts_account_idx',
      'emails_user_date_idx',
      'emails_user_unread_date_idx',
    ]);
    expect(await indexes()).to.not.include('emails_account_date_idx');
    expect(await one('SELECT count(*)::int AS v FROM email_accounts')).to.equal(accountsBefore);
    await db.query(`INSERT INTO email_accounts (user_id, email, email_password, jmap_account_id) VALUES ('${jana}', 'after-down@x.test', 'v1:x', 'd')`);

    await createMigrator(db).up();
    const owners = await one(`SELECT count(*)::int AS v FROM email_account_members WHERE role = 'owner'`);
    expect(owners).to.equal(await one('SELECT count(*)::int AS v FROM email_accounts'));
  });
});
