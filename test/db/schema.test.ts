/**
 * The schema's guarantees as PostgreSQL states them (migration 0018): every relationship is a
 * foreign key that tools can see, TRUNCATE and key updates cannot bypass them, every function pins
 * its search_path, and the schema restores across majors (a dump of PostgreSQL 15, restored into 15
 * and into the suite's 18; the same function bodies on both, so an 18 dump restores into 15 too).
 * The same dump is the committed snapshot docs/schema.sql (scripts/schema-snapshot.ts).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { QueryTypes, Sequelize } from 'sequelize';
import { SNAPSHOT_FILE, snapshotText } from '../../scripts/schema-snapshot.js';
import type { AppContext } from '../../src/app/context.js';
import type { EmbeddedPostgresHandle } from '../../src/db/embedded-postgres.js';
import { migrateUp } from '../../src/db/migrator.js';
import { createContact, createEmail, createEmailAccount } from '../support/email-factories.js';
import { createUser } from '../support/factories.js';
import { testContext } from '../support/harness.js';
import { dumpSchema, findPgDump, pgDumpMajor, startPostgres15 } from '../support/postgres15.js';
import { requireDatabaseUrl, testEnv } from '../support/test-env.js';

/** table(columns) -> referenced(columns) and the delete/update rules, as the spec's data model states them. */
const EXPECTED_KEYS = [
  'api_tokens(user_id) -> users(id) update a delete c',
  'contacts(email_account_id,user_id) -> email_accounts(id,user_id) update c delete c',
  'contacts(user_id) -> users(id) update a delete c',
  'email_account_members(created_by) -> users(id) update a delete n',
  'email_account_members(email_account_id) -> email_accounts(id) update a delete c',
  'email_account_members(user_id) -> users(id) update a delete c',
  'email_accounts(user_id) -> users(id) update a delete c',
  'email_attachments(email_id) -> emails(id) update a delete c',
  'email_contacts(contact_id) -> contacts(id) update a delete c',
  'email_contacts(email_id) -> emails(id) update a delete c',
  'email_threads(email_account_id) -> email_accounts(id) update a delete c',
  'email_threads(last_inbound_email_id) -> emails(id) update a delete n',
  'emails(contact_id) -> contacts(id) update a delete c',
  'emails(email_account_id,user_id) -> email_accounts(id,user_id) update c delete c',
  'full_sync_seen(email_account_id) -> email_accounts(id) update a delete c',
  'mail_sync_states(email_account_id) -> email_accounts(id) update a delete c',
  'sessions(user_id) -> users(id) update a delete c',
  'timesheets(user_id) -> users(id) update a delete c',
];

const KEYS_SQL = `
  SELECT format('%s(%s) -> %s(%s) update %s delete %s', c.conrelid::regclass,
                (SELECT string_agg(a.attname, ',' ORDER BY k.i) FROM unnest(c.conkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n),
                c.confrelid::regclass,
                (SELECT string_agg(a.attname, ',' ORDER BY k.i) FROM unnest(c.confkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n),
                c.confupdtype, c.confdeltype) AS key
    FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
   WHERE c.contype = 'f' AND n.nspname = current_schema()`;

/** Functions of the schema, with the settings they pin and their definition. */
const FUNCTIONS_SQL = `
  SELECT p.proname AS name, p.proconfig AS config, pg_get_functiondef(p.oid) AS def
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
   WHERE n.nspname = current_schema() AND p.prokind = 'f'
     AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
   ORDER BY p.proname`;

describe('database schema: foreign keys, pinned functions, portable across majors', function () {
  this.timeout(300_000);
  let ctx: AppContext;

  before(async () => {
    ctx = await testContext();
  });

  const select = <T extends object>(sql: string, bind: unknown[] = []) => ctx.db.sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT });
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (e: { parent?: { code?: string } }) => e.parent?.code,
    );

  it('states every relationship as a foreign key with the cascades of the data model', async () => {
    const keys = (await select<{ key: string }>(KEYS_SQL)).map((r) => r.key);
    for (const key of EXPECTED_KEYS) expect(keys, key).to.include(key);
    // No trigger function checks or cascades a key by hand any more.
    const triggers = await select<{ name: string }>(
      `SELECT t.tgname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE NOT t.tgisinternal AND n.nspname = current_schema() ORDER BY 1`,
    );
    const handMade = [
      'emails_delete_links',
      'emails_check_contacts',
      'emails_check_email_accounts',
      'emails_check_keys_on_update',
      'email_contacts_check_email',
      'email_contacts_check_contacts',
      'email_contacts_check_contact_on_update',
      'contacts_delete_mail',
      'email_accounts_delete_mail',
    ];
    expect(triggers.map((t) => t.name).filter((name) => handMade.includes(name))).to.deep.equal([]);
    expect(triggers.map((t) => t.name)).to.include.members(['emails_copy_to_links', 'email_contacts_fill_email', 'email_accounts_owner_row']);
  });

  it('refuses TRUNCATE of a referenced table and updates of a key to a row that does not exist', async () => {
    const user = await createUser();
    const other = await createUser();
    const account = await createEmailAccount(user);
    const contact = await createContact(account);
    const email = await createEmail(account, contact);
    for (const table of ['contacts', 'emails', 'email_accounts']) {
      // In a transaction that is rolled back whatever happens: a TRUNCATE that went through must not empty the suite's tables.
      const code = await ctx.db.sequelize
        .transaction(async (transaction) => {
          const result = await codeOf(ctx.db.sequelize.query(`TRUNCATE ${table}`, { transaction }));
          throw Object.assign(new Error('rollback'), { result });
        })
        .catch((e: { result?: string }) => e.result);
      expect(code, `TRUNCATE ${table}`).to.equal('0A000');
    }
    const update = (sql: string, bind: unknown[]) => codeOf(ctx.db.sequelize.query(sql, { bind }));
    expect(await update('UPDATE emails SET user_id = $2 WHERE id = $1', [email.id, other.user.id])).to.equal('23503');
    expect(await update('UPDATE contacts SET user_id = $2 WHERE id = $1', [contact.id, other.user.id])).to.equal('23503');
    expect(await update('UPDATE emails SET contact_id = gen_random_uuid() WHERE id = $1', [email.id])).to.equal('23503');
    expect(await update('UPDATE email_contacts SET contact_id = gen_random_uuid() WHERE contact_id = $1', [contact.id])).to.equal('23503');
    const link = await update('INSERT INTO email_contacts (email_id, contact_id, email_date, is_read) VALUES (gen_random_uuid(), $1, now(), false)', [contact.id]);
    expect(link).to.equal('23503');
  });

  it('pins the search_path of every function of the schema, and builds time-ordered ids without uuidv7()', async () => {
    const functions = await select<{ name: string; config: string[] | null; def: string }>(FUNCTIONS_SQL);
    expect(functions.length).to.be.above(5);
    const unpinned = functions.filter((f) => !(f.config ?? []).some((c) => c.startsWith('search_path=')));
    expect(unpinned.map((f) => f.name)).to.deep.equal([]);
    const uuid = functions.find((f) => f.name === 'crm_uuid_v7')!;
    expect(uuid.def).not.to.match(/uuidv7\s*\(/);
  });

  /** A PostgreSQL 15 migrated once for the tests below (whichever runs first, alone or not), and its dump. */
  let pg15: Promise<{ server: EmbeddedPostgresHandle; dump: string; functions15: Array<{ name: string; def: string }> }> | undefined;
  const migrated15 = (pgDump: string) =>
    (pg15 ??= (async () => {
      // The superuser: the restore below creates and drops databases on that server (the app role may not).
      const server = await startPostgres15(path.join(testEnv.tmpRoot!, 'pg15'));
      const source = new Sequelize(server.superuserUrl, { logging: false });
      try {
        await migrateUp(source);
        const functions15 = await source.query<{ name: string; def: string }>(FUNCTIONS_SQL, { type: QueryTypes.SELECT });
        return { server, dump: dumpSchema(pgDump, server.superuserUrl), functions15 };
      } finally {
        await source.close();
      }
    })());
  after(async () => {
    await (await pg15?.catch(() => undefined))?.server.stop().catch(() => undefined);
  });

  const requirePgDump = (test: Mocha.Context): string => {
    const pgDump = findPgDump();
    if (pgDump) return pgDump;
    if (process.env.CI) throw new Error('pg_dump (postgresql-client) is missing: .ci/run installs it');
    test.skip();
  };

  it('restores a PostgreSQL 15 dump of the schema into 15 and 18, where mail can be stored and searched', async function () {
    const { server, dump, functions15 } = await migrated15(requirePgDump(this));
    for (const [major, base] of [
      ['15', server.superuserUrl],
      ['18', requireDatabaseUrl()],
    ] as const) {
      const admin = new Sequelize(base, { logging: false });
      await admin.query('DROP DATABASE IF EXISTS crm_restored');
      await admin.query('CREATE DATABASE crm_restored');
      await admin.close();
      const target = base.replace(/\/[^/?]+(\?|$)/, '/crm_restored$1');
      execFileSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', target], { input: dump, stdio: ['pipe', 'ignore', 'pipe'] });
      const db = new Sequelize(target, { logging: false });
      try {
        const [{ id }] = await db.query<{ id: string }>(
          `WITH u AS (INSERT INTO users (username) VALUES ('restored') RETURNING id),
                a AS (INSERT INTO email_accounts (user_id, email, email_password, jmap_account_id) SELECT id, 'r@x.test', 'v1:x', 'j' FROM u RETURNING id, user_id),
                c AS (INSERT INTO contacts (user_id, email_account_id, email) SELECT user_id, id, 'kovac@x.test' FROM a RETURNING id, user_id, email_account_id)
           INSERT INTO emails (user_id, email_account_id, contact_id, jmap_id, subject, "from")
           SELECT user_id, email_account_id, id, 'M1', 'Faktúra za október', 'Ján Kováč <kovac@x.test>' FROM c RETURNING id`,
          { type: QueryTypes.SELECT },
        );
        expect(id, `PostgreSQL ${major}: a time-ordered id`).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
        const found = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM email_search s WHERE s.document @@ crm_search_tsquery('faktura kovac jan')`, {
          type: QueryTypes.SELECT,
        });
        expect(found[0].n, `PostgreSQL ${major}: search without diacritics`).to.equal(1);
        const refused = await codeOf(
          db.query(`INSERT INTO email_contacts (email_id, contact_id, email_date, is_read) VALUES (gen_random_uuid(), gen_random_uuid(), now(), false)`),
        );
        expect(refused, `PostgreSQL ${major}: keys restored`).to.equal('23503');
      } finally {
        await db.close();
      }
    }
    // The suite's PostgreSQL 18 migrated to the very same function bodies: its dump restores into 15 as well.
    const functions18 = await select<{ name: string; def: string }>(FUNCTIONS_SQL);
    expect(functions18.map((f) => [f.name, normalise(f.def)])).to.deep.equal(functions15.map((f) => [f.name, normalise(f.def)]));
  });

  // The lint checks only that migrations/ is unchanged since the snapshot (a digest): here the file is
  // compared with what the migrations really build, so a snapshot edited by hand cannot pass either.
  it('has the committed schema snapshot docs/schema.sql exactly as the migrations build it', async function () {
    const pgDump = requirePgDump(this);
    if (pgDumpMajor(pgDump) !== '15') this.skip(); // another pg_dump prints the same schema differently
    const { dump } = await migrated15(pgDump);
    const committed = fs.readFileSync(SNAPSHOT_FILE, 'utf8');
    expect(committed, 'docs/schema.sql differs from a fresh dump: run `npm run schema:snapshot` and commit it').to.equal(snapshotText(dump));
  });
});

/** pg_get_functiondef differs between majors only in whitespace. */
function normalise(def: string): string {
  return def.replace(/\s+/g, ' ').trim();
}
