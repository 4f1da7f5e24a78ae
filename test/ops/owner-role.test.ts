import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { EmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { cliEnv, freshDatabase } from '../admin/cli-helpers.js';
import { sqlAs, sqlState } from '../support/sql-as.js';
import { admin, adminJson, tempDir } from './backup-support.js';

/**
 * Issue 52, finding 15 (ADR 0171): the service's role reads and writes rows and nothing else; the
 * schema belongs to an owner role, and only `serve` (at its start), `db migrate` and `db restore` use it.
 * Through the real CLI: an external database set up by its DBA with two roles (DATABASE_URL and
 * DATABASE_OWNER_URL), and the embedded database (crm_app and crm_owner), each migrated, used, backed up
 * and restored into a second installation of the same kind.
 */
describe('the schema owner and the service role (crm-admin db migrate, backup, restore)', function () {
  this.timeout(600_000);
  const cleanup: Array<() => Promise<void> | void> = [];

  after(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  /** A user made through the service's role, a backup of it, and the archive's path. */
  async function useAndBackUp(env: Record<string, string>, username: string, dir: string): Promise<string> {
    await adminJson(['users', 'create', '--username', username, '--role', 'admin'], env);
    const archive = path.join(dir, 'crm.tar.gz');
    const backup = await admin(['db', 'backup', archive], env);
    expect(backup.status, backup.stderr).to.equal(0);
    return archive;
  }

  it('an external database: db migrate runs as DATABASE_OWNER_URL, the service role gets rows only, a restore needs no more', async () => {
    const source = await freshDatabase('crm_own_a', { migrated: false, appRole: true });
    cleanup.push(source.drop);
    const dir = tempDir('owner-ext');
    cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const env: Record<string, string> = { ...source.env, CRM_DATA_DIR: path.join(dir, 'a') };
    const { DATABASE_URL: serviceUrl, DATABASE_OWNER_URL: ownerUrl } = env;

    // Without the owner's URL the service's role cannot migrate: refused, nothing created.
    const { DATABASE_OWNER_URL: _owner, ...serviceOnly } = env;
    const refused = await admin(['db', 'migrate'], serviceOnly);
    expect(refused.status).to.not.equal(0);
    expect(refused.stderr).to.contain('set DATABASE_OWNER_URL');
    expect(await sqlAs(ownerUrl, "SELECT to_regclass('users') AS t")).to.deep.equal([{ t: null }]);

    const migrated = await admin(['db', 'migrate'], env);
    expect(migrated.status, migrated.stderr).to.equal(0);
    const owners = await sqlAs<{ owner: string }>(
      ownerUrl,
      "SELECT DISTINCT pg_get_userbyid(relowner) AS owner FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'",
    );
    expect(owners).to.deep.equal([{ owner: new URL(ownerUrl).username }]);
    expect(await sqlState(serviceUrl, 'CREATE TABLE planted (id int)')).to.equal('42501');
    expect(await sqlState(serviceUrl, 'ALTER TABLE users DISABLE TRIGGER USER')).to.equal('42501');

    const archive = await useAndBackUp(env, 'owner.ext', dir);
    const target = await freshDatabase('crm_own_b', { migrated: false, appRole: true });
    cleanup.push(target.drop);
    const targetEnv: Record<string, string> = { ...target.env, CRM_DATA_DIR: path.join(dir, 'b') };
    const restored = await admin(['db', 'restore', archive, '--yes'], targetEnv);
    expect(restored.status, restored.stderr).to.equal(0);
    // The restored installation serves through its own service role: rows there, schema still not its own.
    const { items: users } = await adminJson<{ items: Array<{ username: string }> }>(['users', 'list'], targetEnv);
    expect(users.map((u) => u.username)).to.include('owner.ext');
    expect(await sqlState(targetEnv.DATABASE_URL, 'CREATE TABLE planted (id int)')).to.equal('42501');
  });

  it('the embedded database: migrate, use, back up and restore into another data directory, all as crm_owner and crm_app', async () => {
    const dir = tempDir('owner-emb');
    const env = (name: string) => cliEnv({ DATABASE_URL: '', CRM_DATA_DIR: path.join(dir, name), SYNC_CRON: '0 0 1 1 *' });
    // Each command starts the embedded server and stops it again when it is done.
    cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));

    const migrated = await admin(['db', 'migrate'], env('a'));
    expect(migrated.status, migrated.stderr).to.equal(0);
    const archive = await useAndBackUp(env('a'), 'owner.emb', dir);

    const restored = await admin(['db', 'restore', archive, '--yes'], env('b'));
    expect(restored.status, restored.stderr).to.equal(0);
    const { items: users } = await adminJson<{ items: Array<{ username: string }> }>(['users', 'list'], env('b'));
    expect(users.map((u) => u.username)).to.include('owner.emb');
    // The restored tables are the owner's; the app role still has rows only.
    const server = new EmbeddedPostgres(path.join(dir, 'b'));
    const handle = await server.start();
    cleanup.push(() => server.stop());
    const appUrl = handle.url;
    expect(await sqlAs(handle.ownerUrl, "SELECT pg_get_userbyid(relowner) AS owner FROM pg_class WHERE oid = 'users'::regclass")).to.deep.equal([{ owner: 'crm_owner' }]);
    expect(await sqlState(appUrl, 'CREATE TABLE planted (id int)')).to.equal('42501');
    expect(await sqlAs(appUrl, "SELECT count(*)::int AS n FROM users WHERE username = 'owner.emb'")).to.deep.equal([{ n: 1 }]);
  });
});
