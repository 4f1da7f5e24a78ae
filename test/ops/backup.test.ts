import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { EmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { cli, cliEnv, cliJson, freshDatabase, storeTimesheet } from '../admin/cli-helpers.js';
import { createUser } from '../support/factories.js';
import { createContact, createEmail, createEmailAccount } from '../support/email-factories.js';
import { testContext } from '../support/harness.js';
import { requirePrerequisite } from '../support/prerequisite.js';
import { requireDatabaseUrl } from '../support/test-env.js';
import { rewriteArchive } from './backup-support.js';

const DEBIAN_PG = '/usr/lib/postgresql/15/bin';
type Dump = Record<string, string[]>;

/** Every table's rows as text, sorted in JS (collations differ between servers), in UTC. */
async function dumpTables(url: string, tables: string[]): Promise<Dump> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD'; SET IntervalStyle = 'postgres'");
    const dump: Dump = {};
    for (const table of tables) {
      const rows = (await client.query<{ r: string }>(`SELECT t::text AS r FROM "${table}" t`)).rows.map((x) => x.r);
      // The restore's own audit record is the one row the restored database may have in addition.
      dump[table] = rows.filter((r) => !r.includes('admin.db_restore')).sort();
    }
    return dump;
  } finally {
    await client.end();
  }
}

/** The timesheet files a database refers to. */
async function dumpKeys(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ file_path: string }>('SELECT file_path FROM timesheets')).rows.map((r) => r.file_path);
  } finally {
    await client.end();
  }
}

/**
 * The data set's rows, parents first, from the suite's database into `to` (a migrated, empty one).
 * Generated columns are left to the target; rows its triggers already made (the owner's membership)
 * are kept.
 */
async function copyRows(from: string, to: string, set: { userIds: string[]; accountId: string }): Promise<void> {
  const users: [string, unknown[]] = ['user_id = ANY($1)', [set.userIds]];
  const account: [string, unknown[]] = ['email_account_id = $1', [set.accountId]];
  const picks: Array<[string, [string, unknown[]]]> = [
    ['users', ['id = ANY($1)', [set.userIds]]],
    ['email_accounts', ['id = $1', [set.accountId]]],
    ['email_account_members', account],
    ['contacts', account],
    ['emails', account],
    ['email_contacts', ['email_id IN (SELECT id FROM emails WHERE email_account_id = $1)', [set.accountId]]],
    ['audit_logs', users],
    ['timesheets', users],
  ];
  const source = new pg.Client({ connectionString: from });
  const target = new pg.Client({ connectionString: to });
  await source.connect();
  await target.connect();
  try {
    for (const [table, [where, params]] of picks) {
      const { rows } = await source.query<{ rows: unknown }>(`SELECT coalesce(json_agg(t), '[]') AS rows FROM "${table}" t WHERE ${where}`, params);
      const columns = (
        await target.query<{ name: string }>(
          "SELECT column_name AS name FROM information_schema.columns WHERE table_name = $1 AND is_generated = 'NEVER' AND table_schema = 'public'",
          [table],
        )
      ).rows.map((c) => `"${c.name}"`);
      const list = columns.join(', ');
      await target.query(`INSERT INTO "${table}" (${list}) SELECT ${list} FROM json_populate_recordset(NULL::"${table}", $1) ON CONFLICT DO NOTHING`, [
        JSON.stringify(rows[0].rows),
      ]);
    }
    // The copied audit ids came from another sequence: the next record (the backup's own) must follow them.
    await target.query("SELECT setval(pg_get_serial_sequence('audit_logs', 'id'), (SELECT max(id) FROM audit_logs))");
  } finally {
    await source.end();
    await target.end();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** A world-reachable temp dir (the postgres OS user must reach data directories inside it). */
function tempDir(label: string): string {
  const dir = path.join('/tmp', `crm-backup-${label}-${process.pid}-${crypto.randomBytes(3).toString('hex')}`);
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  fs.chmodSync(dir, 0o755);
  return dir;
}

/** Debian's PostgreSQL 15 in a temp dir, run as the postgres OS user on a free loopback port. */
async function startDebianPostgres(dir: string): Promise<{ url: string; stop: () => void }> {
  const asPostgres = process.getuid?.() === 0;
  const ids = asPostgres ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) } : {};
  const pgdata = path.join(dir, 'pg15');
  fs.mkdirSync(pgdata, { mode: 0o700 });
  if (ids.uid !== undefined && ids.gid !== undefined) fs.chownSync(pgdata, ids.uid, ids.gid);
  const run = (bin: string, args: string[]) => execFileSync(path.join(DEBIAN_PG, bin), args, { stdio: 'ignore', ...ids });
  run('initdb', ['-D', pgdata, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
  const port = await freePort();
  run('pg_ctl', ['-D', pgdata, '-w', '-t', '30', '-l', path.join(pgdata, 'server.log'), '-o', `-p ${port} -k ${pgdata} -c listen_addresses=127.0.0.1`, 'start']);
  const admin = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
  await admin.connect();
  await admin.query('CREATE DATABASE crm');
  await admin.end();
  return { url: `postgres://postgres@127.0.0.1:${port}/crm`, stop: () => run('pg_ctl', ['-D', pgdata, '-m', 'immediate', 'stop']) };
}

describe('crm-admin db backup / restore (ops)', function () {
  this.timeout(240_000);
  let work: string;
  let archive: string;
  let tables: string[];
  let sourceDump: Dump;
  let sourceFiles: Map<string, Buffer>;
  /** The backed-up database: this file's data set alone. */
  let sourceUrl: string;
  let sourceEnv: Record<string, string>;
  const cleanups: Array<() => Promise<void> | void> = [];

  before(async function () {
    const ctx = await testContext();
    work = tempDir('work');
    archive = path.join(work, 'crm.tar.gz');
    // A small but complete data set: users, a mail account, contacts, emails, audit rows, three timesheet files,
    // made through the real services in the suite's database and then moved into a database of its own,
    // so that the backup holds this data set and nothing another test left behind.
    const admin = await createUser({ role: 'admin' });
    const member = await createUser({ password: 'Dlhé heslo člena 123' });
    const account = await createEmailAccount(member, { password: 'mailbox-secret' });
    const [c1, c2] = [await createContact(account, { name: 'Ján Ďurčo', notes: 'tab\there, "quotes", back\\slash\nnew line' }), await createContact(account)];
    await createEmail(account, c1, { subject: 'Faktúra č. 1', participants: [c2] });
    await createEmail(account, c1, { body: null, isRead: true });
    await createEmail(account, c2, { subject: 'Ďakujem 😊' });
    await ctx.services.audit.record({ action: 'test.backup_fixture', userId: admin.user.id, details: { nested: { a: [1, 2] } } }, { actor: 'test' });
    for (const month of [1, 2, 3]) await storeTimesheet(member.user.id, 2024, month, 2000 + month * 1000);
    const own = await freshDatabase('bk_source');
    cleanups.push(own.drop);
    sourceEnv = own.env;
    sourceUrl = own.env.DATABASE_URL;
    await copyRows(requireDatabaseUrl(), sourceUrl, { userIds: [admin.user.id, member.user.id], accountId: account.id });

    const summary = await cliJson<{ tables: number; rows: number; files: number; bytes: number }>(['db', 'backup', archive], undefined, sourceEnv);
    expect(summary.files).to.equal(3);
    expect(fs.statSync(archive).mode & 0o777).to.equal(0o600);
    // The state the archive holds: the snapshot came before the backup's own audit record.
    const verify = await cliJson<{ ok: boolean; tables: Array<{ name: string }>; rows: number }>(['db', 'backup', '--verify', archive]);
    tables = verify.tables.map((t) => t.name);
    const dump = await dumpTables(sourceUrl, tables);
    dump.audit_logs = dump.audit_logs.filter((r) => !r.includes('admin.db_backup'));
    sourceDump = dump;
    expect(verify.rows).to.equal(Object.values(sourceDump).reduce((n, rows) => n + rows.length, 0));
    expect(sourceDump.users).to.have.length(2);
    expect(sourceDump.timesheets).to.have.length(3);
    const keys = (await dumpKeys(sourceUrl)).filter((k) => fs.existsSync(path.join(ctx.config.timesheetDir, k)));
    sourceFiles = new Map(keys.map((k) => [k, fs.readFileSync(path.join(ctx.config.timesheetDir, k))]));
  });

  after(async function () {
    // In the order pushed: each server is stopped before its directory is removed.
    for (const cleanup of cleanups) {
      try {
        await cleanup();
      } catch {
        /* best effort */
      }
    }
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  function expectRestored(dump: Dump, dataDir: string): void {
    for (const table of tables) expect(dump[table], `table ${table}`).to.deep.equal(sourceDump[table]);
    for (const [key, bytes] of sourceFiles) expect(fs.readFileSync(path.join(dataDir, 'timesheets', key)).equals(bytes), `file ${key}`).to.equal(true);
  }

  it('verifies an intact archive: every table and file, counts and checksums, and the key', async function () {
    const res = await cli(['db', 'backup', '--verify', archive]);
    expect(res.status, res.stderr).to.equal(0);
    expect(res.stdout)
      .to.match(/Archive OK/)
      .and.match(/key: matches CRM_ENCRYPTION_KEY/);
    expect(tables).to.include.members(['users', 'email_accounts', 'contacts', 'emails', 'email_contacts', 'audit_logs', 'timesheets']);
    expect(tables).not.to.include('schema_migrations');
    // Parents before children (foreign keys; the keys of emails and email_contacts are kept by
    // triggers since migrations 0013 and 0016, and user triggers are off while a restore loads).
    expect(tables.indexOf('users')).to.be.below(tables.indexOf('email_accounts'));
    expect(tables.indexOf('emails')).to.be.below(tables.indexOf('email_attachments'));
    expect(tables.indexOf('email_accounts')).to.be.below(tables.indexOf('contacts'));
  });

  it('fails --verify on a tampered or truncated archive', async function () {
    const tampered = path.join(work, 'tampered.tar.gz');
    await rewriteArchive(archive, tampered, (name, data) => (name.includes('-users/part-') ? Buffer.from(data.toString('utf8').replace('Test', 'Tesx')) : data));
    let res = await cli(['db', 'backup', '--verify', tampered]);
    expect(res.status).to.equal(1);
    expect(res.stderr)
      .to.match(/DAMAGED/)
      .and.match(/table users: checksum differs/);
    const truncated = path.join(work, 'truncated.tar.gz');
    fs.writeFileSync(truncated, fs.readFileSync(archive).subarray(0, Math.floor(fs.statSync(archive).size * 0.6)));
    res = await cli(['db', 'backup', '--verify', truncated]);
    expect(res.status).to.equal(1);
    expect(res.stderr).to.match(/DAMAGED/);
  });

  it('refuses a forged archive (a user made admin, every sha256 recomputed): --verify fails, restore loads nothing', async function () {
    // Issue 26: checksums alone let anyone who can write the archive edit it; the manifest's HMAC
    // under a key derived from CRM_ENCRYPTION_KEY does not.
    const forged = path.join(work, 'forged.tar.gz');
    let usersPart: Buffer | undefined;
    await rewriteArchive(archive, forged, (name, data) => {
      if (name.includes('-users/part-')) {
        usersPart = Buffer.from(data.toString('utf8').replaceAll('\tmember\t', '\tadmin\t'));
        expect(usersPart.equals(data), 'the fixture has a plain user to promote').to.equal(false);
        return usersPart;
      }
      if (name !== 'manifest.json') return data;
      const manifest = JSON.parse(data.toString('utf8')) as { tables: Array<{ name: string; bytes: number; sha256: string }> };
      const users = manifest.tables.find((t) => t.name === 'users')!;
      users.bytes = usersPart!.length;
      users.sha256 = crypto.createHash('sha256').update(usersPart!).digest('hex');
      return Buffer.from(JSON.stringify(manifest, null, 2));
    });
    const verify = await cli(['db', 'backup', '--verify', forged]);
    expect(verify.status, verify.stdout).to.equal(1);
    expect(verify.stderr).to.match(/HMAC does not match/);
    expect(verify.stderr).not.to.match(/checksum differs/);

    const db = await freshDatabase('bk_forged', { migrated: false });
    cleanups.push(db.drop);
    const dataDir = tempDir('forged');
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const res = await cli(['db', 'restore', forged], undefined, { ...db.env, CRM_DATA_DIR: dataDir });
    expect(res.status, res.stderr).to.equal(1);
    expect(res.stderr).to.match(/HMAC does not match/);
    // Refused before the first migration: the target is as empty as it was.
    const [users] = await dumpTablesRaw(db.env.DATABASE_URL, "SELECT to_regclass('public.users')::text AS r");
    expect(users).to.equal(null);
  });

  it('restores into a fresh embedded PostgreSQL in a new data directory: identical rows and files', async function () {
    const dataDir = tempDir('embedded');
    const embedded = new EmbeddedPostgres(dataDir);
    const { url } = await embedded.start();
    cleanups.push(
      () => embedded.stop(),
      () => fs.rmSync(dataDir, { recursive: true, force: true }),
    );
    const env = cliEnv({ DATABASE_URL: '', CRM_DATA_DIR: dataDir });
    const summary = await cliJson<{ rows: number; files: number; migrationsApplied: string[] }>(['db', 'restore', archive], undefined, env);
    expect(summary.files).to.equal(sourceFiles.size);
    expectRestored(await dumpTables(url, tables), dataDir);

    // A second restore into the now non-empty database without --yes is refused and changes nothing.
    const before = await dumpTables(url, [...tables, 'schema_migrations']);
    const refused = await cli(['db', 'restore', archive], undefined, env);
    expect(refused.status, `signal ${refused.signal}, error ${refused.error}; ${refused.stderr}`).to.equal(2);
    expect(refused.stderr).to.match(/--yes/);
    expect(await dumpTables(url, [...tables, 'schema_migrations'])).to.deep.equal(before);

    // With --yes it replaces the data (and the restored audit_logs sequence continues past the ids).
    const again = await cliJson<{ replacedRows: number }>(['db', 'restore', archive, '--yes'], undefined, env);
    expect(again.replacedRows).to.be.above(0);
    expectRestored(await dumpTables(url, tables), dataDir);
    expect((await cli(['audit', 'list', '--action', 'admin.db_restore'], undefined, env)).status).to.equal(0);
  });

  it("restores into Debian's PostgreSQL 15 (another major version)", async function () {
    requirePrerequisite(this, fs.existsSync(path.join(DEBIAN_PG, 'initdb')), `Debian's PostgreSQL 15 (apt-get install postgresql-15): ${DEBIAN_PG}/initdb`);
    const dataDir = tempDir('pg15');
    const server = await startDebianPostgres(dataDir);
    cleanups.push(
      () => server.stop(),
      () => fs.rmSync(dataDir, { recursive: true, force: true }),
    );
    const res = await cli(['db', 'restore', archive], undefined, cliEnv({ DATABASE_URL: server.url, CRM_DATA_DIR: dataDir }));
    expect(res.status, res.stderr).to.equal(0);
    expectRestored(await dumpTables(server.url, tables), dataDir);
  });

  it('refuses an archive made with another encryption key, before changing anything', async function () {
    const db = await freshDatabase('bk_key', { migrated: false });
    cleanups.push(db.drop);
    const env: Record<string, string> = { ...db.env, CRM_DATA_DIR: tempDir('key'), CRM_ENCRYPTION_KEY: 'ab'.repeat(32) };
    cleanups.push(() => fs.rmSync(env.CRM_DATA_DIR, { recursive: true, force: true }));
    const res = await cli(['db', 'restore', archive], undefined, env);
    expect(res.status).to.equal(1);
    // Signed under a key derived from another CRM_ENCRYPTION_KEY: it cannot be authenticated here, so
    // only the explicit opt-in restores it (--ignore-key-mismatch no longer skips the signature).
    expect(res.stderr)
      .to.match(/nedá overiť/)
      .and.match(/--allow-unsigned/);
    const [row] = (await dumpTablesRaw(env.DATABASE_URL, "SELECT to_regclass('public.schema_migrations')::text AS r")) ?? [];
    expect(row).to.equal(null); // not even the migrations ran
    // Signed with a key derived from the other CRM_ENCRYPTION_KEY: intact, but not authenticated here.
    const verify = await cli(['db', 'backup', '--verify', archive], undefined, env);
    expect(verify.status).to.equal(1);
    expect(verify.stderr)
      .to.match(/different encryption key/)
      .and.match(/NOT AUTHENTICATED/);
  });

  it('refuses an archive from a newer schema than this program knows, before changing anything', async function () {
    // A genuine, signed archive of a database a newer release migrated: its schema_migrations names a
    // migration this program does not have.
    const newer = await freshDatabase('bk_newer');
    cleanups.push(newer.drop);
    await dumpTablesRaw(newer.env.DATABASE_URL, "INSERT INTO schema_migrations (name) VALUES ('9999-from-the-future') RETURNING name AS r");
    const future = path.join(work, 'future.tar.gz');
    const made = await cli(['db', 'backup', future], undefined, { ...newer.env, CRM_DATA_DIR: tempDir('newer') });
    expect(made.status, made.stderr).to.equal(0);

    const db = await freshDatabase('bk_future', { migrated: false });
    cleanups.push(db.drop);
    const dataDir = tempDir('future');
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const res = await cli(['db', 'restore', future], undefined, { ...db.env, CRM_DATA_DIR: dataDir });
    expect(res.status, `signal ${res.signal}, error ${res.error}, stderr ${res.stderr}`).to.equal(1);
    expect(res.stderr)
      .to.match(/novšiu verziu schémy/)
      .and.match(/9999-from-the-future/);
    const [migrations] = await dumpTablesRaw(db.env.DATABASE_URL, "SELECT to_regclass('public.schema_migrations')::text AS r");
    expect(migrations).to.equal(null);
  });
});

async function dumpTablesRaw(url: string, sql: string): Promise<Array<string | null>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ r: string | null }>(sql)).rows.map((x) => x.r);
  } finally {
    await client.end();
  }
}
