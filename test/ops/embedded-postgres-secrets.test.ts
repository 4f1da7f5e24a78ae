import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { EmbeddedPostgres, createPrivateDir, writeSecretFile } from '../../src/db/embedded-postgres.js';

/**
 * Issue 13: the first initialisation handed the superuser password to initdb through
 * `/tmp/crm-pw-<pid>-<ms>`, written with a plain open (follows symlinks) and then chowned by path. A
 * local user who plants symlinks at the names it will pick gets the password written into a file of
 * their choosing (and that file chowned to postgres).
 */
describe('embedded PostgreSQL: the initdb password file (issue 13)', function () {
  this.timeout(120_000);
  let root: string;
  let savedTmpdir: string | undefined;

  beforeEach(() => {
    // Not a mkdtemp (mode 700): the postgres OS user must reach the data directory.
    root = path.join('/tmp', `crm-pwsec-${process.pid}-${Date.now()}`);
    fs.mkdirSync(root, { mode: 0o755 });
    fs.chmodSync(root, 0o755);
    savedTmpdir = process.env.TMPDIR;
  });

  afterEach(() => {
    if (savedTmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmpdir;
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('writes a secret with exclusive create: a planted symlink or file is refused, not written through', () => {
    const victim = path.join(root, 'victim');
    fs.writeFileSync(victim, 'original');
    const planted = path.join(root, 'planted');
    fs.symlinkSync(victim, planted);
    expect(() => writeSecretFile(planted, 'secret')).to.throw(/EEXIST/);
    fs.writeFileSync(path.join(root, 'existing'), 'x');
    expect(() => writeSecretFile(path.join(root, 'existing'), 'secret')).to.throw(/EEXIST/);
    expect(fs.readFileSync(victim, 'utf8')).to.equal('original');

    const file = writeSecretFile(path.join(root, 'fresh'), 'secret');
    expect(fs.readFileSync(file, 'utf8')).to.equal('secret');
    expect(fs.statSync(file).mode & 0o777).to.equal(0o600);
  });

  it('puts the file in a fresh 0700 directory with an unpredictable name', () => {
    const a = createPrivateDir(root, '.initdb-');
    const b = createPrivateDir(root, '.initdb-');
    expect(a).to.not.equal(b);
    for (const dir of [a, b]) {
      const st = fs.lstatSync(dir);
      expect(st.isDirectory()).to.equal(true);
      expect(st.mode & 0o777).to.equal(0o700);
      expect(st.uid).to.equal(process.getuid!());
    }
  });

  it('a first initialisation writes nothing through symlinks planted in TMPDIR at the names the old code picked', async () => {
    // A world-writable sticky directory standing in for /tmp, with a victim file of root's.
    const tmp = path.join(root, 'tmp');
    fs.mkdirSync(tmp);
    fs.chmodSync(tmp, 0o1777);
    const victim = path.join(root, 'victim');
    fs.writeFileSync(victim, 'original', { mode: 0o644 });
    const victimOwner = fs.statSync(victim).uid;
    // The old name was crm-pw-<pid>-<Date.now()>: plant the next 30 s of them.
    const from = Date.now();
    for (let ms = from; ms < from + 30_000; ms++) fs.symlinkSync(victim, path.join(tmp, `crm-pw-${process.pid}-${ms}`));
    process.env.TMPDIR = tmp;

    const pg = new EmbeddedPostgres(path.join(root, 'data'));
    try {
      await pg.start();
    } finally {
      await pg.stop().catch(() => undefined);
    }

    expect(fs.readFileSync(victim, 'utf8'), 'the password was written into the planted file').to.equal('original');
    expect(fs.statSync(victim).uid).to.equal(victimOwner);
    // Only the planted links: nothing of ours was created (or removed) in the shared temp directory.
    expect(fs.readdirSync(tmp).length).to.equal(30_000);
    // No initdb leftovers beside the data directory; the service's copies of the passwords (the
    // superuser's, the app role's and the owner role's: ADRs 0121, 0171) are private.
    expect(fs.readdirSync(path.join(root, 'data')).sort()).to.deep.equal(['postgres', 'postgres.app-password', 'postgres.owner', 'postgres.owner-password', 'postgres.password']);
    for (const file of ['postgres.password', 'postgres.app-password', 'postgres.owner-password']) {
      expect(fs.statSync(path.join(root, 'data', file)).mode & 0o777, file).to.equal(0o600);
    }
  });
});
