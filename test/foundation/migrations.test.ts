import { scratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';
import { expect } from 'chai';
import { QueryTypes, type Sequelize } from 'sequelize';
import { createMigrator } from '../../src/db/migrator.js';

const EXPECTED_TABLES = [
  'api_tokens',
  'audit_logs',
  'companies',
  'contact_suppressions',
  'contacts',
  'conversation_comments',
  'email_account_members',
  'email_accounts',
  'email_attachment_files',
  'email_attachments',
  'email_contacts',
  'email_drafts',
  'email_reads',
  'email_search',
  'email_signatures',
  'email_templates',
  'email_threads',
  'emails',
  'events',
  'follow_ups',
  'full_sync_seen',
  'mail_sync_states',
  'people',
  'person_emails',
  'privacy_hash_keys',
  'privacy_suppressions',
  'rate_limits',
  'resync_progress',
  'scheduled_emails',
  'send_idempotency_keys',
  'sessions',
  'tasks',
  'timesheets',
  'users',
  'webhook_attempts',
  'webhook_deliveries',
  'webhooks',
];

/** Runs against a scratch database so that dropping the schema cannot disturb the other tests. */
describe('migrations', function () {
  let database: ScratchDatabase;
  let scratch: Sequelize;

  before(async () => {
    database = await scratchDatabase('crm_migrations');
    scratch = database.db;
  });

  after(() => database?.drop());

  async function tables(): Promise<string[]> {
    const rows = await scratch.query<{ name: string }>(
      "SELECT table_name::text AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'schema_migrations' ORDER BY 1",
      { type: QueryTypes.SELECT },
    );
    return rows.map((r) => r.name);
  }

  it('creates every table on the way up', async () => {
    await createMigrator(scratch).up();
    expect(await tables()).to.deep.equal(EXPECTED_TABLES);
    expect(await createMigrator(scratch).pending()).to.have.length(0);
  });

  it('enforces the contract constraints (docs/contract.md §2): contact uniqueness, cascades, one primary account', async () => {
    const [[user]] = (await scratch.query("INSERT INTO users (username, role) VALUES ('mig', 'member') RETURNING id")) as [Array<{ id: string }>, unknown];
    const [[account]] = (await scratch.query(
      `INSERT INTO email_accounts (user_id, email, email_password, jmap_account_id, is_primary) VALUES ('${user.id}', 'a@x.test', 'v1:x', 'a', true) RETURNING id`,
    )) as [Array<{ id: string }>, unknown];
    await scratch.query(`INSERT INTO contacts (user_id, email_account_id, email) VALUES ('${user.id}', '${account.id}', 'c@x.test')`);
    let duplicate: unknown;
    try {
      await scratch.query(`INSERT INTO contacts (user_id, email_account_id, email) VALUES ('${user.id}', '${account.id}', 'c@x.test')`);
    } catch (err) {
      duplicate = err;
    }
    expect(String(duplicate)).to.match(/unique|duplicate/i);
    let secondPrimary: unknown;
    try {
      await scratch.query(`INSERT INTO email_accounts (user_id, email, email_password, jmap_account_id, is_primary) VALUES ('${user.id}', 'b@x.test', 'v1:x', 'b', true)`);
    } catch (err) {
      secondPrimary = err;
    }
    expect(String(secondPrimary)).to.match(/unique|duplicate/i);
    const [[defaults]] = (await scratch.query(`SELECT is_active, is_primary FROM email_accounts WHERE id = '${account.id}'`)) as [Array<{ is_active: boolean }>, unknown];
    expect(defaults.is_active).to.equal(true);
    await scratch.query(`DELETE FROM users WHERE id = '${user.id}'`);
    const [left] = await scratch.query('SELECT count(*)::int AS n FROM contacts');
    expect((left as Array<{ n: number }>)[0].n).to.equal(0);
  });

  it('drops everything on the way down and comes back up', async () => {
    await createMigrator(scratch).down({ to: 0 });
    expect(await tables()).to.deep.equal([]);
    await createMigrator(scratch).up();
    expect(await tables()).to.deep.equal(EXPECTED_TABLES);
  });
});
