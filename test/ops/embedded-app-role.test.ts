import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { Sequelize } from 'sequelize';
import { APP_ROLE, OWNER_ROLE } from '../../src/db/embedded-app-role.js';
import { EmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { migrateUp } from '../../src/db/migrator.js';
import { sqlAs, sqlState } from '../support/sql-as.js';

/**
 * ADRs 0121 and 0171: the service connects to its embedded database as `crm_app`, a role that is no
 * superuser (so it cannot take the reserved connection slots nor read or change anything outside its
 * database) and may only read and write rows (issue 52, finding 15: it owned the database, so DDL,
 * `ALTER DATABASE ... SET` and trusted extensions worked). The database and everything in it are
 * `crm_owner`'s, which migrations and restores run as. Data directories of older releases (everything
 * `crm_app`'s, or before 0.3.0 everything `postgres`'s) are handed over at their first start.
 */
describe('embedded PostgreSQL: the app connects as a role of its own with rows only; an owner role holds the schema', function () {
  this.timeout(180_000);
  let root: string;
  let pgServer: EmbeddedPostgres;
  const dataDir = () => path.join(root, 'data');

  before(() => {
    // Not a mkdtemp (mode 700): the postgres OS user must reach the data directory.
    root = path.join('/tmp', `crm-approle-${process.pid}-${Date.now()}`);
    fs.mkdirSync(root, { mode: 0o755 });
    fs.chmodSync(root, 0o755);
    pgServer = new EmbeddedPostgres(dataDir());
  });

  after(async () => {
    await pgServer?.stop().catch(() => undefined);
    fs.rmSync(root, { recursive: true, force: true });
  });

  async function migrate(url: string): Promise<void> {
    const owner = new Sequelize(url, { logging: false });
    try {
      await migrateUp(owner);
    } finally {
      await owner.close();
    }
  }

  /** Objects of the public schema not owned by `role` (extension members aside). */
  const ownedByOthers = (role: string) => `
    SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'i') AND pg_get_userbyid(c.relowner) <> '${role}'
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
    UNION ALL
    SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = 'public' AND pg_get_userbyid(p.proowner) <> '${role}'
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
    UNION ALL
    SELECT cfgname FROM pg_ts_config c JOIN pg_namespace n ON n.oid = c.cfgnamespace
     WHERE n.nspname = 'public' AND pg_get_userbyid(c.cfgowner) <> '${role}'`;

  /** What the app role may not do any more: each statement and the SQLSTATE it must fail with. */
  const SCHEMA_CHANGES = [
    'CREATE TABLE planted (id int)',
    'CREATE FUNCTION planted() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$',
    "ALTER DATABASE crm SET work_mem = '1GB'",
    'ALTER TABLE users ADD COLUMN planted text',
    'ALTER TABLE users DISABLE TRIGGER USER',
    'DROP TABLE audit_logs',
    'TRUNCATE audit_logs',
    'CREATE SCHEMA planted',
    'DROP EXTENSION unaccent',
  ];

  async function expectRowsOnly(url: string): Promise<void> {
    for (const sql of SCHEMA_CHANGES) expect(await sqlState(url, sql), sql).to.equal('42501');
    // Rows, through the tables' triggers (owned by crm_owner, run as the caller).
    await sqlAs(url, "INSERT INTO users (username) VALUES ('rows.only') ON CONFLICT DO NOTHING");
    await sqlAs(url, "UPDATE users SET first_name = 'Riadky' WHERE username = 'rows.only'");
    expect(await sqlAs(url, "SELECT first_name FROM users WHERE username = 'rows.only'")).to.deep.equal([{ first_name: 'Riadky' }]);
    await sqlAs(url, "DELETE FROM users WHERE username = 'rows.only'");
  }

  it('a new data directory: neither role is a superuser, the owner migrates, the app reads and writes rows and changes no schema', async () => {
    const handle = await pgServer.start();
    expect(new URL(handle.url).username).to.equal(APP_ROLE);
    expect(new URL(handle.ownerUrl).username).to.equal(OWNER_ROLE);
    const roles = await sqlAs<{ rolname: string; rolsuper: boolean; rolcreatedb: boolean; rolcreaterole: boolean }>(
      handle.superuserUrl,
      `SELECT rolname, rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname IN ('${APP_ROLE}', '${OWNER_ROLE}') ORDER BY rolname`,
    );
    expect(roles).to.deep.equal([
      { rolname: APP_ROLE, rolsuper: false, rolcreatedb: false, rolcreaterole: false },
      { rolname: OWNER_ROLE, rolsuper: false, rolcreatedb: false, rolcreaterole: false },
    ]);
    for (const file of ['postgres.app-password', 'postgres.owner-password']) expect(fs.statSync(path.join(dataDir(), file)).mode & 0o777, file).to.equal(0o600);

    // The migrations' CREATE EXTENSION IF NOT EXISTS pass: the superuser created them at the handover.
    await migrate(handle.ownerUrl);
    expect(await sqlAs(handle.url, ownedByOthers(OWNER_ROLE))).to.deep.equal([]);
    const [db] = await sqlAs<{ owner: string }>(handle.url, "SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = 'crm'");
    expect(db.owner).to.equal(OWNER_ROLE);
    await expectRowsOnly(handle.url);
  });

  it('a data directory of 0.3.0-0.5.x (everything crm_app’s) is handed over at its next start, data and app password kept', async () => {
    const first = await pgServer.start();
    // What 0.5.0 left: no owner role, the database and everything in it crm_app's.
    await sqlAs(
      first.superuserUrl,
      `REASSIGN OWNED BY ${OWNER_ROLE} TO ${APP_ROLE}; DROP OWNED BY ${OWNER_ROLE}; DROP ROLE ${OWNER_ROLE};
       INSERT INTO users (username) VALUES ('release.05')`,
    );
    fs.rmSync(path.join(dataDir(), 'postgres.owner-password'));
    expect(await sqlState(first.url, 'CREATE TABLE planted_05 (id int)')).to.equal('ok');
    await sqlAs(first.url, 'DROP TABLE planted_05');
    const appPassword = fs.readFileSync(path.join(dataDir(), 'postgres.app-password'), 'utf8');
    await pgServer.stop();

    const again = await pgServer.start();
    // A process of the old release still running keeps logging in with the password it read.
    expect(fs.readFileSync(path.join(dataDir(), 'postgres.app-password'), 'utf8')).to.equal(appPassword);
    expect(await sqlAs(again.url, ownedByOthers(OWNER_ROLE))).to.deep.equal([]);
    expect(await sqlAs(again.url, "SELECT username FROM users WHERE username = 'release.05'")).to.deep.equal([{ username: 'release.05' }]);
    await migrate(again.ownerUrl);
    await expectRowsOnly(again.url);
  });

  it('a data directory of a release before 0.3.0 (everything the superuser’s) is handed over too; a later start changes nothing', async () => {
    const first = await pgServer.start();
    await sqlAs(
      first.superuserUrl,
      `REASSIGN OWNED BY ${OWNER_ROLE} TO postgres; DROP OWNED BY ${OWNER_ROLE}; DROP ROLE ${OWNER_ROLE};
       DROP OWNED BY ${APP_ROLE}; DROP ROLE ${APP_ROLE}; INSERT INTO users (username) VALUES ('old.release')`,
    );
    fs.rmSync(path.join(dataDir(), 'postgres.app-password'));
    fs.rmSync(path.join(dataDir(), 'postgres.owner-password'));
    expect((await sqlAs(first.superuserUrl, ownedByOthers(OWNER_ROLE))).length).to.be.above(10);
    await pgServer.stop();

    const again = await pgServer.start();
    expect(await sqlAs(again.url, ownedByOthers(OWNER_ROLE))).to.deep.equal([]);
    expect(await sqlAs(again.url, "SELECT username FROM users WHERE username = 'old.release'")).to.deep.equal([{ username: 'old.release' }]);
    await migrate(again.ownerUrl);
    await expectRowsOnly(again.url);

    const passwords = ['postgres.app-password', 'postgres.owner-password'].map((f) => fs.readFileSync(path.join(dataDir(), f), 'utf8'));
    await pgServer.start();
    expect(['postgres.app-password', 'postgres.owner-password'].map((f) => fs.readFileSync(path.join(dataDir(), f), 'utf8'))).to.deep.equal(passwords);
  });
});
