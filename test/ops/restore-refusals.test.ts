import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { admin, adminJson, editJson, fingerprint, fixtureArchives, rewriteArchive, sha256, site, tempDir, usersOf, type Site } from './backup-support.js';

/**
 * Issue 35 items 1 and 2: a refused restore leaves the target exactly as it was (schema and data),
 * and an archive that cannot be authenticated is neither restored nor called OK without --allow-unsigned.
 * The target is at this release's schema with data of its own; the archives claim an older schema, which
 * before the fix made restore revert the target's migrations before it found out the archive was bad.
 */
describe('db restore refuses before it changes anything (issue 35)', function () {
  this.timeout(600_000);
  let source: Site;
  let target: Site;
  let work: string;
  let archive: string;
  /** The same data signed with BACKUP_SIGNING_KEY = S1. */
  let signedS1: string;
  const s1 = 'first-backup-signing-secret-0123456789abcdef';
  let untouched: Record<string, string>;

  before(async function () {
    work = tempDir('refusals');
    source = await site('rf_src');
    expect((await admin(['db', 'seed'], source.env)).status).to.equal(0);
    archive = path.join(work, 'crm.tar.gz');
    expect((await admin(['db', 'backup', archive], source.env)).status).to.equal(0);
    signedS1 = path.join(work, 'signed-s1.tar.gz');
    expect((await admin(['db', 'backup', signedS1], { ...source.env, BACKUP_SIGNING_KEY: s1 })).status).to.equal(0);
    target = await site('rf_tgt');
    expect((await admin(['users', 'create', '-u', 'keeper', '--role', 'admin'], target.env)).status).to.equal(0);
    untouched = await fingerprint(target);
    expect(untouched.privacy_suppressions, 'a table of a migration newer than 0017').to.be.a('string');
  });

  after(async function () {
    await source?.drop();
    await target?.drop();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  /** The archive's header claims schema 0017: restoring it would first revert the target's newer migrations. */
  const claimOldSchema = (data: Buffer) =>
    editJson<{ migrations: string[] }>(data, (h) => {
      h.migrations = h.migrations.slice(0, h.migrations.indexOf('0017-pending-read-index') + 1);
    });

  async function expectRefusedUnchanged(file: string, extra: string[], message: RegExp): Promise<void> {
    const res = await admin(['db', 'restore', file, '--yes', ...extra], target.env);
    expect(res.status, res.stderr).to.equal(1);
    expect(res.stderr).to.match(message);
    expect(await fingerprint(target)).to.deep.equal(untouched);
  }

  it('refuses a forged header (an older schema claimed) with the database unchanged', async function () {
    const forged = path.join(work, 'forged-header.tar.gz');
    await rewriteArchive(archive, forged, (name, data) => (name === 'header.json' ? claimOldSchema(data) : data));
    await expectRefusedUnchanged(forged, [], /header\.json was changed/);
  });

  it('refuses a truncated archive (its header readable, claiming schema 0017) with the database unchanged', async function () {
    const truncated = path.join(work, 'truncated.tar.gz');
    const whole = fs.readFileSync(path.join(fixtureArchives, 'crm-21017b3-unsigned.tar.gz'));
    fs.writeFileSync(truncated, whole.subarray(0, Math.floor(whole.length * 0.7)));
    const report = await admin(['db', 'backup', '--verify', truncated, '--json'], target.env);
    expect(report.status).to.equal(1);
    expect(JSON.parse(report.stdout.toString()), 'the header was read').to.include({ schemaVersion: '0017-pending-read-index', intact: false });
    await expectRefusedUnchanged(truncated, ['--allow-unsigned'], /damaged|truncated/);
  });

  it('refuses an archive whose HMAC does not match (header edited, its sha256 recomputed), even with --allow-unsigned', async function () {
    const forged = path.join(work, 'bad-hmac.tar.gz');
    let header: Buffer | undefined;
    await rewriteArchive(archive, forged, (name, data) => {
      if (name === 'header.json') return (header = claimOldSchema(data));
      if (name !== 'manifest.json') return data;
      return editJson<{ headerSha256: string; migrations: string[] }>(data, (m) => {
        m.headerSha256 = sha256(header!);
        m.migrations = (JSON.parse(header!.toString()) as { migrations: string[] }).migrations;
      });
    });
    const verify = await admin(['db', 'backup', '--verify', forged], target.env);
    expect(verify.status).to.equal(1);
    expect(verify.stderr)
      .to.match(/HMAC does not match/)
      .and.not.match(/header\.json was changed/);
    await expectRefusedUnchanged(forged, ['--allow-unsigned'], /HMAC does not match/);
  });

  it('refuses a forged archive (a member made admin) under another key: --ignore-key-mismatch no longer skips the signature', async function () {
    const forged = path.join(work, 'forged-admin.tar.gz');
    let usersPart: Buffer | undefined;
    await rewriteArchive(archive, forged, (name, data) => {
      if (name.includes('-users/part-')) {
        usersPart = Buffer.from(data.toString('utf8').replaceAll('\tmember\t', '\tadmin\t'));
        expect(usersPart.equals(data), 'the seed has members to promote').to.equal(false);
        return usersPart;
      }
      if (name !== 'manifest.json') return data;
      return editJson<{ tables: Array<{ name: string; bytes: number; sha256: string }> }>(data, (m) => {
        const users = m.tables.find((t) => t.name === 'users')!;
        users.bytes = usersPart!.length;
        users.sha256 = sha256(usersPart!);
      });
    });
    const otherKey = { ...target.env, CRM_ENCRYPTION_KEY: 'ab'.repeat(32) };
    let verify = await admin(['db', 'backup', '--verify', forged], otherKey);
    expect(verify.status, verify.stdout.toString()).to.equal(1);
    expect(verify.stderr).to.match(/NOT AUTHENTICATED/);
    expect(verify.stdout.toString()).not.to.match(/Archive OK/);
    const res = await admin(['db', 'restore', forged, '--yes', '--ignore-key-mismatch'], otherKey);
    expect(res.status, res.stderr).to.equal(1);
    expect(res.stderr).to.match(/--allow-unsigned/);
    expect(await fingerprint(target)).to.deep.equal(untouched);
    // Under the key it names, the forgery is proven, and no flag restores it.
    verify = await admin(['db', 'backup', '--verify', forged, '--allow-unsigned'], target.env);
    expect(verify.status).to.equal(1);
    expect(verify.stderr).to.match(/HMAC does not match/);
  });

  it('signs with BACKUP_SIGNING_KEY; retired signing keys and a rotated encryption key still verify', async function () {
    const s2 = 'second-backup-signing-secret-0123456789abcdef';
    const signed = signedS1;
    type Report = { ok: boolean; authentication: { status: string; key?: string } };
    const withS1 = await adminJson<Report>(['db', 'backup', '--verify', signed], { ...target.env, BACKUP_SIGNING_KEY: s1 });
    expect(withS1.authentication).to.include({ status: 'signed', key: 'BACKUP_SIGNING_KEY' });
    const rotated = await adminJson<Report>(['db', 'backup', '--verify', signed], { ...target.env, BACKUP_SIGNING_KEY: s2, BACKUP_SIGNING_KEYS_RETIRED: s1 });
    expect(rotated.authentication).to.include({ status: 'signed', key: 'BACKUP_SIGNING_KEYS_RETIRED' });
    // The encryption key alone does not verify an archive signed with BACKUP_SIGNING_KEY.
    const unknown = await admin(['db', 'backup', '--verify', signed, '--json'], target.env);
    expect(unknown.status).to.equal(1);
    expect(JSON.parse(unknown.stdout.toString())).to.deep.include({ ok: false, intact: true });
    expect(unknown.stderr).to.match(/NOT AUTHENTICATED/);
    // Issue 52, finding 18: --allow-unsigned is for an archive with no signature, not for a key id nobody here knows.
    const optedIn = await admin(['db', 'backup', '--verify', signed, '--allow-unsigned'], target.env);
    expect(optedIn.status, optedIn.stderr).to.equal(1);
    expect(optedIn.stderr)
      .to.match(/NOT AUTHENTICATED/)
      .and.match(/not accepted with --allow-unsigned/);
    expect(optedIn.stdout.toString()).to.not.match(/Archive (OK|intact)/);
    // An archive signed by default (from CRM_ENCRYPTION_KEY) verifies after that key is rotated into CRM_ENCRYPTION_OLD_KEYS.
    const afterRotation = await adminJson<Report>(['db', 'backup', '--verify', archive], {
      ...target.env,
      CRM_ENCRYPTION_KEY: 'cd'.repeat(32),
      CRM_ENCRYPTION_OLD_KEYS: target.env.CRM_ENCRYPTION_KEY,
    });
    expect(afterRotation.authentication).to.include({ status: 'signed', key: 'CRM_ENCRYPTION_OLD_KEYS' });
    expect(afterRotation.ok).to.equal(true);
  });

  // Issue 52, finding 18: a key id that is not configured here cannot be told from one a forger made up.
  it('refuses an archive signed with a key not configured here even with --allow-unsigned, and restores it once the key is configured', async function () {
    const fresh = await site('rf_opt');
    try {
      const untouchedFresh = await fingerprint(fresh);
      for (const extra of [[], ['--allow-unsigned']]) {
        const refused = await admin(['db', 'restore', signedS1, '--yes', ...extra], fresh.env);
        expect(refused.status, extra.join(' ')).to.equal(1);
        expect(refused.stderr, extra.join(' ')).to.match(/not\s+configured\s+here/);
        expect(await fingerprint(fresh), extra.join(' ')).to.deep.equal(untouchedFresh);
      }
      const res = await admin(['db', 'restore', signedS1, '--yes', '--json'], { ...fresh.env, BACKUP_SIGNING_KEYS_RETIRED: s1 });
      expect(res.status, res.stderr).to.equal(0);
      expect(JSON.parse(res.stdout.toString())).to.include({ authentication: 'signed' });
      expect(await usersOf(fresh)).to.deep.equal(await usersOf(source));
    } finally {
      await fresh.drop();
    }
  });

  it('refuses a forgery that names a signing key of its own (a member made admin), even with --allow-unsigned', async function () {
    const forged = path.join(work, 'forged-own-key.tar.gz');
    let usersPart: Buffer | undefined;
    await rewriteArchive(archive, forged, (name, data) => {
      if (name.includes('-users/part-')) return (usersPart = Buffer.from(data.toString('utf8').replaceAll('\tmember\t', '\tadmin\t')));
      if (name !== 'manifest.json') return data;
      return editJson<{ tables: Array<{ name: string; bytes: number; sha256: string }>; signingKey?: string; hmac?: string }>(data, (m) => {
        const users = m.tables.find((t) => t.name === 'users')!;
        users.bytes = usersPart!.length;
        users.sha256 = sha256(usersPart!);
        m.signingKey = '0123456789abcdef';
        m.hmac = 'ab'.repeat(32);
      });
    });
    const verify = await admin(['db', 'backup', '--verify', forged, '--allow-unsigned'], target.env);
    expect(verify.status, verify.stdout.toString()).to.equal(1);
    expect(verify.stderr).to.match(/NOT AUTHENTICATED/);
    await expectRefusedUnchanged(forged, ['--allow-unsigned'], /not\s+configured\s+here/);
  });

  it('restores with --ignore-key-mismatch an archive from another encryption key, authenticated by a shared BACKUP_SIGNING_KEY', async function () {
    const other = await site('rf_key', { env: { CRM_ENCRYPTION_KEY: 'ab'.repeat(32), BACKUP_SIGNING_KEY: s1 } });
    try {
      const refused = await admin(['db', 'restore', signedS1, '--yes'], other.env);
      expect(refused.status).to.equal(1);
      expect(refused.stderr).to.match(/--ignore-key-mismatch/);
      const res = await admin(['db', 'restore', signedS1, '--yes', '--ignore-key-mismatch', '--json'], other.env);
      expect(res.status, res.stderr).to.equal(0);
      expect(JSON.parse(res.stdout.toString())).to.include({ keyStatus: 'different', authentication: 'signed' });
      expect(await usersOf(other)).to.deep.equal(await usersOf(source));
    } finally {
      await other.drop();
    }
  });
});
