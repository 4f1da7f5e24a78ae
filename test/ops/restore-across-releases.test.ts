import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { repoRoot } from '../support/cli.js';
import { admin, fixtureArchives, site, usersOf, type Site } from './backup-support.js';

/** The CRM_ENCRYPTION_KEY the fixture archives were written with (their README). */
const FIXTURE_ENCRYPTION_KEY = '0f'.repeat(32);

/** Every migration this release ships, as schema_migrations records them. */
function releaseMigrations(): string[] {
  return fs
    .readdirSync(path.join(repoRoot, 'migrations'))
    .filter((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => f.replace(/\.ts$/, ''))
    .sort();
}

async function appliedMigrations(target: Site): Promise<string[]> {
  return (await target.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')).map((r) => r.name);
}

/**
 * Issue 33, backups across releases (docs/backups.md): archives written by earlier releases (fixtures
 * made by older checkouts of this repository, test/fixtures/archives/README.md) restore into this
 * release: loaded at their own schema, then migrated to today's.
 */
describe('db restore of archives written by earlier releases (issue 33)', function () {
  this.timeout(600_000);
  const sites: Site[] = [];

  after(async function () {
    for (const s of sites) await s.drop();
  });

  async function emptySite(label: string): Promise<Site> {
    // The fixtures were made with the suite's former fixed key (test/fixtures/archives/README.md); the
    // suite's own secrets are random now, so the target is given the key the archives were made with.
    const s = await site(label, { empty: true, env: { CRM_ENCRYPTION_KEY: FIXTURE_ENCRYPTION_KEY } });
    sites.push(s);
    return s;
  }

  it('refuses the unsigned archive of a release before signing (21017b3) without --allow-unsigned, changing nothing', async function () {
    const target = await emptySite('xr_refuse');
    const res = await admin(['db', 'restore', path.join(fixtureArchives, 'crm-21017b3-unsigned.tar.gz')], target.env);
    expect(res.status, res.stderr).to.equal(1);
    expect(res.stderr)
      .to.match(/no\s+signature/)
      .and.match(/--allow-unsigned/);
    const [row] = await target.query<{ t: string | null }>("SELECT to_regclass('public.schema_migrations')::text AS t");
    expect(row.t, 'not even the migrations ran').to.equal(null);
  });

  it('restores it with --allow-unsigned: says so, audits it, loads the data at schema 0017 and migrates it to this release', async function () {
    const target = await emptySite('xr_unsigned');
    const res = await admin(['db', 'restore', path.join(fixtureArchives, 'crm-21017b3-unsigned.tar.gz'), '--allow-unsigned', '--json'], target.env);
    expect(res.status, res.stderr).to.equal(0);
    expect(res.stderr)
      .to.match(/cannot be authenticated/)
      .and.match(/"authentication":"unsigned"/);
    const summary = JSON.parse(res.stdout.toString()) as { schemaVersion: string; migrationsAfterLoad: string[]; authentication: string };
    expect(summary.schemaVersion).to.equal('0017-pending-read-index');
    expect(summary.migrationsAfterLoad).to.include.members(['0018-real-foreign-keys', '0023-idempotency-body-hash']);
    expect(await appliedMigrations(target)).to.deep.equal(releaseMigrations());
    expect(await usersOf(target)).to.deep.equal(['admin:admin', 'jana:member', 'peter:member', 'zuzana:member']);
    const [zuzana] = await target.query<{ last_name: string }>("SELECT last_name FROM users WHERE username = 'zuzana'");
    expect(zuzana.last_name).to.equal('Ďurčová');
    const [audit] = await target.query<{ auth: string; allow: boolean }>(
      "SELECT details->>'authentication' AS auth, (details->>'allowUnsigned')::boolean AS allow FROM audit_logs WHERE action = 'admin.db_restore'",
    );
    expect(audit).to.deep.equal({ auth: 'unsigned', allow: true });
    // The migrated database works for the release: its own commands read it.
    const list = await admin(['users', 'list', '--json'], target.env);
    expect(list.status, list.stderr).to.equal(0);
  });

  it('restores the signed archive of release 0.1.0 (d78dab2) without any flag, and migrates it to this release', async function () {
    const target = await emptySite('xr_010');
    const res = await admin(['db', 'restore', path.join(fixtureArchives, 'crm-0.1.0-d78dab2.tar.gz'), '--json'], target.env);
    expect(res.status, res.stderr).to.equal(0);
    const summary = JSON.parse(res.stdout.toString()) as { appVersion: string; authentication: string };
    expect(summary).to.include({ appVersion: '0.1.0', authentication: 'signed' });
    expect(await appliedMigrations(target)).to.deep.equal(releaseMigrations());
    expect(await usersOf(target)).to.include.members(['admin:admin', 'jana:member', 'peter:member', 'marek:member']);
  });

  it('restores the signed archive of release 0.2.0 (de2ee88, schema 0026) and applies what 0.3.0 added', async function () {
    const target = await emptySite('xr_020');
    const res = await admin(['db', 'restore', path.join(fixtureArchives, 'crm-0.2.0-de2ee88.tar.gz'), '--json'], target.env);
    expect(res.status, res.stderr).to.equal(0);
    const summary = JSON.parse(res.stdout.toString()) as { appVersion: string; authentication: string; schemaVersion: string; migrationsAfterLoad: string[] };
    expect(summary).to.include({ appVersion: '0.2.0', authentication: 'signed', schemaVersion: '0026-participants-every-address-header' });
    expect(summary.migrationsAfterLoad).to.include.members(['0027-companies', '0030-email-search-table', '0031-resync-progress']);
    expect(await appliedMigrations(target)).to.deep.equal(releaseMigrations());
    expect(await usersOf(target)).to.include.members(['admin:admin', 'jana:member', 'peter:member', 'lucia:member']);
    const list = await admin(['users', 'list', '--json'], target.env);
    expect(list.status, list.stderr).to.equal(0);
  });

  it('restores the signed archive of release 0.3.0 (fa2b9fa, schema 0031) and applies what came after it', async function () {
    const target = await emptySite('xr_030');
    const res = await admin(['db', 'restore', path.join(fixtureArchives, 'crm-0.3.0-fa2b9fa.tar.gz'), '--json'], target.env);
    expect(res.status, res.stderr).to.equal(0);
    const summary = JSON.parse(res.stdout.toString()) as { appVersion: string; authentication: string; schemaVersion: string; migrationsAfterLoad: string[] };
    expect(summary).to.include({ appVersion: '0.3.0', authentication: 'signed', schemaVersion: '0031-resync-progress' });
    expect(summary.migrationsAfterLoad).to.include.members(['0032-full-sync-seen']);
    expect(await appliedMigrations(target)).to.deep.equal(releaseMigrations());
    expect(await usersOf(target)).to.include.members(['admin:admin', 'jana:member', 'peter:member', 'eva:member']);
    const [eva] = await target.query<{ last_name: string }>("SELECT last_name FROM users WHERE username = 'eva'");
    expect(eva.last_name).to.equal('Žitná');
    const [columns] = await target.query<{ n: number }>("SELECT count(*)::int AS n FROM information_schema.columns WHERE column_name = 'sync_generation'");
    expect(columns.n, 'the generation columns are gone').to.equal(0);
    const list = await admin(['users', 'list', '--json'], target.env);
    expect(list.status, list.stderr).to.equal(0);
  });
});
