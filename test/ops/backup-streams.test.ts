import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { backupKeys } from '../../src/backup/signing.js';
import { verifyArchive } from '../../src/backup/verify.js';
import { admin, adminJson, editJson, rewriteArchive, site, tempDir, usersOf, type Site } from './backup-support.js';

const FILLER_ROWS = 300;

/**
 * Issue 39's untested backup promises: archives through stdout and stdin, tables cut into parts, every
 * damage check of archive-check.ts, no archive under the final name after a failed backup, and one
 * consistent snapshot while the service writes. Every test builds its own databases.
 */
describe('db backup / restore: streams, parts, damage, snapshots (issue 39)', function () {
  this.timeout(600_000);
  let source: Site;
  let work: string;
  let archive: string;
  const sites: Site[] = [];

  before(async function () {
    work = tempDir('streams');
    source = await site('st_src');
    sites.push(source);
    expect((await admin(['db', 'seed'], source.env)).status).to.equal(0);
    await source.query(
      `INSERT INTO audit_logs (action, actor, details) SELECT 'test.filler', 'test', jsonb_build_object('i', g, 'text', repeat('ž', 60)) FROM generate_series(1, ${FILLER_ROWS}) g`,
    );
    // Through stdout, in parts of about 4 KiB (8 MiB in production), so audit_logs is cut into many.
    const res = await admin(['db', 'backup', '-', '--part-size', '4096'], source.env);
    expect(res.status, res.stderr).to.equal(0);
    expect(res.stderr).to.match(/Backup written: -/);
    archive = path.join(work, 'from-stdout.tar.gz');
    fs.writeFileSync(archive, res.stdout);
  });

  after(async function () {
    for (const s of sites) await s.drop();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('db backup - writes the archive to stdout, cut into parts; --verify - and db restore - read it from stdin', async function () {
    const bytes = fs.readFileSync(archive);
    expect(bytes.subarray(0, 2).toString('hex'), 'a gzip stream on stdout').to.equal('1f8b');
    type Report = { ok: boolean; tables: Array<{ name: string; rows: number; parts: number }> };
    const report = await adminJson<Report>(['db', 'backup', '--verify', '-'], source.env, bytes);
    expect(report.ok).to.equal(true);
    const audit = report.tables.find((t) => t.name === 'audit_logs')!;
    expect(audit.rows).to.be.at.least(FILLER_ROWS);
    expect(audit.parts, 'audit_logs cut into parts').to.be.above(5);

    const target = await site('st_tgt', { empty: true });
    sites.push(target);
    const res = await admin(['db', 'restore', '-'], target.env, bytes);
    expect(res.status, res.stderr).to.equal(0);
    expect(await usersOf(target)).to.deep.equal(await usersOf(source));
    const [filler] = await target.query<{ n: string; sum: string }>(
      "SELECT count(*)::text AS n, md5(string_agg(details::text, '|' ORDER BY id)) AS sum FROM audit_logs WHERE action = 'test.filler'",
    );
    const [original] = await source.query<{ n: string; sum: string }>(
      "SELECT count(*)::text AS n, md5(string_agg(details::text, '|' ORDER BY id)) AS sum FROM audit_logs WHERE action = 'test.filler'",
    );
    expect(filler).to.deep.equal(original);
    expect(filler.n).to.equal(String(FILLER_ROWS));
  });

  it('refuses each kind of damage with its own message (archive-check.ts, archive-reader.ts)', async function () {
    const keys = backupKeys({ current: Buffer.from(source.env.CRM_ENCRYPTION_KEY, 'hex'), old: [] }, { retired: [] });
    const uuid = '0b7c5a0e-1d2f-4e3a-9b8c-7d6e5f4a3b2c';
    const auditPart = (n: number) => new RegExp(`^tables/\\d{3}-audit_logs/part-${String(n).padStart(6, '0')}\\.copy$`);
    let held: Buffer | undefined;
    let heldName: string | undefined;
    const cases: Array<[string, Parameters<typeof rewriteArchive>[2], RegExp]> = [
      ['a part skipped', (name, data) => (auditPart(2).test(name) ? null : data), /table audit_logs: part 3 follows part 1/],
      ['a table entry under another index', (name, data) => (auditPart(1).test(name) ? [{ name: name.replace(/\d{3}-audit_logs/, '999-audit_logs'), data }] : data), /table entry 999-audit_logs is not in the header/],
      [
        'a table out of order (users moved behind audit_logs)',
        (name, data) => {
          if (/-users\/part-000001\.copy$/.test(name)) {
            held = data;
            heldName = name;
            return null;
          }
          return auditPart(1).test(name) ? [{ name, data }, { name: heldName!, data: held! }] : data;
        },
        /table users is out of order/,
      ],
      ['a file that is not a storage key', (name, data) => (name === 'manifest.json' ? [{ name: 'files/evil', data: Buffer.from('x') }, { name, data }] : data), /file entry "evil" is not a storage key/],
      [
        'a file twice',
        (name, data) => (name === 'manifest.json' ? [{ name: `files/${uuid}`, data: Buffer.from('x') }, { name: `files/${uuid}`, data: Buffer.from('x') }, { name, data }] : data),
        /file .* appears twice/,
      ],
      ['a file not in the manifest', (name, data) => (name === 'manifest.json' ? [{ name: `files/${uuid}`, data: Buffer.from('x') }, { name, data }] : data), /file .*: not in the manifest/],
      [
        'a file in the manifest missing from the archive',
        (name, data) => (name === 'manifest.json' ? editJson<{ files: unknown[] }>(data, (m) => m.files.push({ key: uuid, size: 1, sha256: 'x' })) : data),
        /in the manifest but missing from the archive/,
      ],
      ['a row dropped', (name, data) => (auditPart(2).test(name) ? data.subarray(data.indexOf(0x0a) + 1) : data), /table audit_logs: \d+ rows read, manifest says \d+/],
      ['a table missing from the manifest', (name, data) => (name === 'manifest.json' ? editJson<{ tables: Array<{ name: string }> }>(data, (m) => (m.tables = m.tables.filter((t) => t.name !== 'users'))) : data), /table users: missing from the manifest/],
      [
        'a table in the manifest only',
        (name, data) => (name === 'manifest.json' ? editJson<{ tables: unknown[] }>(data, (m) => m.tables.push({ name: 'ghosts', rows: 0, bytes: 0, parts: 0, sha256: 'x' })) : data),
        /table ghosts: in the manifest but not in the header/,
      ],
      ['another schema in the manifest', (name, data) => (name === 'manifest.json' ? editJson<{ migrations: string[] }>(data, (m) => m.migrations.pop()) : data), /disagree on the schema version/],
      ['another key in the manifest', (name, data) => (name === 'manifest.json' ? editJson<{ key: { fingerprint: string } }>(data, (m) => (m.key.fingerprint = '0000000000000000')) : data), /disagree on the key fingerprint/],
      ['an unknown entry', (name, data) => (name === 'manifest.json' ? [{ name: 'notes.txt', data: Buffer.from('x') }, { name, data }] : data), /unexpected entry "notes\.txt"/],
      ['an entry after the manifest', (name, data) => (name === 'manifest.json' ? [{ name, data }, { name: `files/${uuid}`, data: Buffer.from('x') }] : data), /after manifest\.json/],
      ['no manifest', (name, data) => (name === 'manifest.json' ? null : data), /ends without manifest\.json/],
      ['no header first', (name, data) => (name === 'header.json' ? null : data), /not a staff-crm backup: the first entry is/],
      ['a header that is not JSON', (name, data) => (name === 'header.json' ? Buffer.from('{') : data), /header\.json is not valid JSON/],
      ['a newer format', (name, data) => (name === 'header.json' ? editJson<{ formatVersion: number }>(data, (h) => (h.formatVersion = 99)) : data), /format version 99/],
    ];
    for (const [label, edit, message] of cases) {
      held = undefined;
      const damaged = path.join(work, `damaged-${label.replace(/\W+/g, '-')}.tar.gz`);
      await rewriteArchive(archive, damaged, edit);
      const report = await verifyArchive(damaged, keys, []);
      expect(report.ok, label).to.equal(false);
      expect(report.problems.join('\n'), label).to.match(message);
    }
    const gzipCut = path.join(work, 'cut.tar.gz');
    fs.writeFileSync(gzipCut, fs.readFileSync(archive).subarray(0, 200));
    expect((await verifyArchive(gzipCut, keys, [])).problems.join('\n')).to.match(/damaged or truncated|first entry is missing/);
    expect((await verifyArchive(path.join(work, 'nowhere.tar.gz'), keys, [])).problems.join('\n')).to.match(/cannot read .*ENOENT/);
  });

  it('leaves no file under the final name, and no .partial, when a backup fails', async function () {
    const empty = await site('st_empty', { empty: true });
    sites.push(empty);
    const dir = tempDir('partial');
    try {
      const res = await admin(['db', 'backup', path.join(dir, 'crm.tar.gz')], empty.env);
      expect(res.status).to.equal(1);
      expect(res.stderr).to.match(/nemá schému/);
      expect(fs.readdirSync(dir)).to.deep.equal([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes one consistent snapshot while the service writes: a transaction committed mid-backup is wholly absent', async function () {
    const order = (await adminJson<{ tables: Array<{ name: string }> }>(['db', 'backup', '--verify', archive], source.env)).tables.map((t) => t.name);
    expect(order.indexOf('users'), 'users is copied before audit_logs').to.be.below(order.indexOf('audit_logs'));
    // A writer holds audit_logs: the backup copies users, then waits for audit_logs. Meanwhile the
    // writer adds a user and an audit record in one transaction and commits. A per-table read would
    // then see the audit record but not the user; one snapshot sees neither.
    const writer = new pg.Client({ connectionString: source.url });
    await writer.connect();
    try {
      await writer.query('BEGIN');
      await writer.query('LOCK TABLE audit_logs IN ACCESS EXCLUSIVE MODE');
      const during = path.join(work, 'during-writes.tar.gz');
      const backup = admin(['db', 'backup', during], source.env);
      await copyWaitsForLock(source, 'audit_logs');
      await writer.query(
        "WITH u AS (INSERT INTO users (username, role, first_name, last_name) VALUES ('midway', 'member', 'Mid', 'Way') RETURNING id) " +
          "INSERT INTO audit_logs (action, actor, user_id) SELECT 'test.midway', 'test', id FROM u",
      );
      await writer.query('COMMIT');
      const res = await backup;
      expect(res.status, res.stderr).to.equal(0);
      const target = await site('st_snap', { empty: true });
      sites.push(target);
      expect((await admin(['db', 'restore', during], target.env)).status).to.equal(0);
      expect(await usersOf(target)).not.to.include('midway:member');
      expect(await target.query("SELECT 1 FROM audit_logs WHERE action = 'test.midway'")).to.deep.equal([]);
      // The write did happen, in the source, while the backup ran.
      expect(await source.query("SELECT 1 FROM audit_logs WHERE action = 'test.midway'")).to.have.length(1);
    } finally {
      await writer.end();
    }
  });
});

/** Waits (generously: a loaded machine) until a backend's COPY of `table` waits on a lock. */
async function copyWaitsForLock(db: Site, table: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const rows = await db.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1", [`COPY "${table}"%`]);
    if (rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no COPY of ${table} waited on the lock`);
}
