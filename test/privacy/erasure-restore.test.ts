import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { backupKeys, manifestHmac } from '../../src/backup/signing.js';
import type { ArchiveManifest } from '../../src/backup/manifest.js';
import { admin, adminJson, editJson, fingerprint, rewriteArchive, sha256, site, tempDir, type Site } from '../ops/backup-support.js';
import { freshMailUser, put, type MailUser } from '../sync/helpers.js';

const day = (n: number) => new Date(Date.UTC(2025, 4, n, 9, 0, 0));

/**
 * Issue 52, finding 3: an erasure survives the documented restore into another installation (another
 * CRM_ENCRYPTION_KEY, the archive authenticated by a shared BACKUP_SIGNING_KEY, --ignore-key-mismatch).
 * The mailbox is linked again there (its password sealed under the old key is unreadable) and synced,
 * first sync and full resync, against the real Cyrus: the erased address's mail stays out.
 */
describe('an erasure survives a restore into another installation', function () {
  this.timeout(900_000);
  const signing = `shared-backup-signing-${randomBytes(8).toString('hex')}`;
  const otherKey = randomBytes(32).toString('hex');
  let work: string;
  let source: Site | undefined;
  let target: Site | undefined;
  let mail: MailUser;
  let ana: string;
  let eva: string;

  const ok = async (args: string[], s: Site, input?: string) => {
    const res = await admin(args, s.env, input === undefined ? undefined : Buffer.from(input));
    expect(res.status, `crm-admin ${args.join(' ')}\n${res.stderr}`).to.equal(0);
    return res;
  };
  const mailOf = (s: Site, address: string) =>
    s.query<{ subject: string }>('SELECT subject FROM emails WHERE participants @> ARRAY[$1]::text[] ORDER BY subject', [address]).then((rows) => rows.map((r) => r.subject));
  const contactsOf = (s: Site, address: string) => s.query<{ id: string }>('SELECT id FROM contacts WHERE email = $1', [address]).then((rows) => rows.length);

  before(async function () {
    work = tempDir('erasure-restore');
    const run = randomBytes(4).toString('hex');
    ana = `ana-${run}@clients.example`;
    eva = `eva-${run}@clients.example`;
    mail = await freshMailUser('erasure-restore');
    await put(mail, 'INBOX', { from: ana, to: mail.user, subject: 'Od Any', body: 'Zdravotné problémy, volajte po 17:00.', date: day(1) });
    await put(mail, 'INBOX', { from: eva, to: mail.user, subject: 'Od Evy', body: 'Objednávka.', date: day(2) });
    source = await site('er_src', { env: { BACKUP_SIGNING_KEY: signing } });
    target = await site('er_tgt', { empty: true, env: { CRM_ENCRYPTION_KEY: otherKey, BACKUP_SIGNING_KEY: signing } });
  });

  after(async function () {
    await source?.drop();
    await target?.drop();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('backup, restore with another encryption key, the mailbox linked again and resynced: the erased address stays gone', async function () {
    const s = source!;
    const t = target!;
    await ok(['users', 'create', '-u', 'owner'], s);
    await ok(['email-accounts', 'attach', 'owner', '--email', mail.user, '--password-stdin'], s, mail.pass);
    await ok(['sync', 'run', '--all'], s);
    expect(await mailOf(s, ana), 'the source synced her mail').to.deep.equal(['Od Any']);
    await ok(['privacy', 'erase', '--email', ana, '--yes'], s);
    expect(await mailOf(s, ana)).to.deep.equal([]);
    const archive = path.join(work, 'crm.tar.gz');
    await ok(['db', 'backup', archive], s);

    const restored = await adminJson<{ keyStatus: string; authentication: string }>(['db', 'restore', archive, '--yes', '--ignore-key-mismatch'], t.env);
    expect(restored).to.include({ keyStatus: 'different', authentication: 'signed' });
    // The mail password sealed under the source's key cannot be read here: the mailbox is linked again.
    const [account] = await t.query<{ id: string }>('SELECT id FROM email_accounts WHERE email = $1', [mail.user]);
    await ok(['email-accounts', 'remove', account.id, '--yes'], t);
    await ok(['email-accounts', 'attach', 'owner', '--email', mail.user, '--password-stdin'], t, mail.pass);
    await ok(['sync', 'run', '--all'], t);
    expect(await mailOf(t, eva), 'the target synced the mailbox').to.deep.equal(['Od Evy']);
    expect(await mailOf(t, ana), 'the first sync of the re-linked mailbox brought the erased mail back').to.deep.equal([]);
    await ok(['sync', 'resync', '--all', '--restart', '--pause-ms', '0'], t);
    expect(await mailOf(t, ana), 'a full resync brought the erased mail back').to.deep.equal([]);
    expect(await contactsOf(t, ana)).to.equal(0);
  });

  it('refuses an archive made with another key that holds erasures but carries no key for them (as 0.5.0 wrote), the target untouched', async function () {
    const s = await site('er_old', { env: { BACKUP_SIGNING_KEY: signing } });
    const t = await site('er_old_tgt', { env: { CRM_ENCRYPTION_KEY: otherKey, BACKUP_SIGNING_KEY: signing } });
    try {
      await ok(['privacy', 'erase', '--email', `gone-${randomBytes(3).toString('hex')}@clients.example`, '--yes'], s);
      const archive = path.join(work, 'with-keys.tar.gz');
      await ok(['db', 'backup', archive], s);
      // What 0.5.0 wrote: the same archive without privacyHashKeys, signed again by the shared key.
      const old = path.join(work, 'without-keys.tar.gz');
      const keys = backupKeys({ current: Buffer.from(s.env.CRM_ENCRYPTION_KEY, 'hex'), old: [] }, { current: signing, retired: [] });
      let header: Buffer | undefined;
      await rewriteArchive(archive, old, (name, data) => {
        if (name === 'header.json') return (header = editJson<{ privacyHashKeys?: unknown }>(data, (h) => delete h.privacyHashKeys));
        if (name !== 'manifest.json') return data;
        return editJson<ArchiveManifest>(data, (m) => {
          m.headerSha256 = sha256(header!);
          m.hmac = manifestHmac(m, keys.signing);
        });
      });
      const before = await fingerprint(t);
      const refused = await admin(['db', 'restore', old, '--yes', '--ignore-key-mismatch'], t.env);
      expect(refused.status, refused.stderr).to.equal(1);
      expect(refused.stderr).to.match(/1 vymazaní osobných údajov, ale nie kľúč/);
      expect(await fingerprint(t)).to.deep.equal(before);
    } finally {
      await s.drop();
      await t.drop();
    }
  });
});
