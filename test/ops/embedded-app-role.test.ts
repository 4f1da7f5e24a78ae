import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { Sequelize } from 'sequelize';
import { APP_ROLE } from '../../src/db/embedded-app-role.js';
import { EmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { migrateUp } from '../../src/db/migrator.js';

/**
 * ADR 0121: the service connects to its embedded database as `crm_app`, a role that is no superuser
 * (so it cannot take the reserved connection slots nor read or change anything outside its database)
 * and owns the database and everything in it (so migrations run). A data directory of a release
 * before 0.3.0 (everything owned by `postgres`) is handed over at its first start.
 */
describe('embedded PostgreSQL: the app connects as a role of its own, not the superuser', function () {
  this.timeout(180_000);
  let root: string;
  let pgServer: EmbeddedPostgres;

  before(() => {
    // Not a mkdtemp (mode 700): the postgres OS user must reach the data directory.
    root = path.join('/tmp', `crm-approle-${process.pid}-${Date.now()}`);
    fs.mkdirSync(root, { mode: 0o755 });
    fs.chmodSync(root, 0o755);
    pgServer = new EmbeddedPostgres(path.join(root, 'data'));
  });

  after(async () => {
    await pgServer?.stop().catch(() => undefined);
    fs.rmSync(root, { recursive: true, force: true });
  });

  async function query<T extends object>(url: string, sql: string): Promise<T[]> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<T & pg.QueryResultRow>(sql)).rows;
    } finally {
      await client.end();
    }
  }

  /** Objects of the public schema not owned by the app role (extension members aside). */
  const FOREIGN_OWNED = `
    SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'i') AND pg_get_userbyid(c.relowner) <> '${APP_ROLE}'
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
    UNION ALL
    SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = 'public' AND pg_get_userbyid(p.proowner) <> '${APP_ROLE}'
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')`;

  it('a new data directory: the app role is no superuser, may not create databases or roles, and migrates its own database', async () => {
    const handle = await pgServer.start();
    expect(new URL(handle.url).username).to.equal(APP_ROLE);
    const [me] = await query<{ rolname: string; rolsuper: boolean; rolcreatedb: boolean; rolcreaterole: boolean }>(
      handle.url,
      'SELECT rolname, rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname = current_user',
    );
    expect(me).to.deep.equal({ rolname: APP_ROLE, rolsuper: false, rolcreatedb: false, rolcreaterole: false });
    expect(fs.statSync(path.join(root, 'data', 'postgres.app-password')).mode & 0o777).to.equal(0o600);

    const app = new Sequelize(handle.url, { logging: false });
    try {
      // The migrations' CREATE EXTENSION IF NOT EXISTS pass: the superuser created them at the handover.
      await migrateUp(app);
    } finally {
      await app.close();
    }
    expect(await query(handle.url, FOREIGN_OWNED)).to.deep.equal([]);
    const [owner] = await query<{ owner: string }>(handle.url, "SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = 'crm'");
    expect(owner.owner).to.equal(APP_ROLE);
  });

  it('a data directory of an older release (everything the superuser’s) is handed over at its next start, data and all', async () => {
    const first = await pgServer.start();
    // What 0.2.0 left: no app role, the database, its schema, tables and functions owned by postgres, some data.
    await query(
      first.superuserUrl,
      `REASSIGN OWNED BY ${APP_ROLE} TO postgres; DROP OWNED BY ${APP_ROLE}; DROP ROLE ${APP_ROLE};
       INSERT INTO users (username) VALUES ('old.release')`,
    );
    fs.rmSync(path.join(root, 'data', 'postgres.app-password'));
    expect((await query(first.superuserUrl, FOREIGN_OWNED)).length).to.be.above(10);
    await pgServer.stop();

    const again = await pgServer.start();
    expect(await query(again.url, FOREIGN_OWNED)).to.deep.equal([]);
    expect(await query(again.url, "SELECT username FROM users WHERE username = 'old.release'")).to.deep.equal([{ username: 'old.release' }]);
    const app = new Sequelize(again.url, { logging: false });
    try {
      await migrateUp(app);
      // Writes go through its triggers (owned by the app role now) as before.
      await app.query("UPDATE users SET first_name = 'Starý' WHERE username = 'old.release'");
    } finally {
      await app.close();
    }
    // A later start reads the password file and changes nothing.
    const password = fs.readFileSync(path.join(root, 'data', 'postgres.app-password'), 'utf8');
    await pgServer.start();
    expect(fs.readFileSync(path.join(root, 'data', 'postgres.app-password'), 'utf8')).to.equal(password);
  });
});
