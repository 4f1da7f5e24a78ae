import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { cli, cliEnv, cliJson, freshDatabase } from '../admin/cli-helpers.js';
import { LocalFileStorage } from '../../src/storage/local-storage.js';
import type { S3FileStorage } from '../../src/storage/s3-storage.js';
import { Timesheet } from '../../src/models/index.js';
import { sessionFor } from '../support/auth.js';
import { spawn } from 'node:child_process';
import { childEnv, crmAdmin, runCli } from '../support/cli.js';
import { createUser } from '../support/factories.js';
import { testApp } from '../support/harness.js';
import { until } from '../support/poll.js';
import { bucketStorage, freshBucket, instanceDataDir, type S3Env } from '../support/s3-server.js';
import { testEnv } from '../support/test-env.js';
import { pdfFixture } from '../timesheets/fixtures.js';
import { uploadRequest } from '../timesheets/helpers.js';

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function keysIn(storage: S3FileStorage | LocalFileStorage): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of storage.store('timesheets').list()) keys.push(object.key);
  return keys.sort();
}

const tmp = () => testEnv.tmpRoot ?? '/tmp';

/** The operator's side of stored files with CRM_STORAGE=s3: backup and restore, migrate-storage, doctor. */
describe('stored files in S3: backup and restore, migrate-storage, doctor', function () {
  this.timeout(600_000);
  const cleanups: Array<() => Promise<unknown>> = [];
  const buckets: S3FileStorage[] = [];

  async function bucket(prefix: string): Promise<{ env: S3Env; storage: S3FileStorage }> {
    const env = await freshBucket(prefix);
    const storage = await bucketStorage(env);
    buckets.push(storage);
    return { env, storage };
  }

  after(async () => {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
    for (const storage of buckets) await storage.close();
  });

  describe('db backup and db restore with the files in a bucket', () => {
    let source: { env: S3Env; storage: S3FileStorage };
    let archive: string;
    const files = new Map<string, Buffer>();

    before(async () => {
      source = await bucket('crm-bk');
      const app = await testApp({ CRM_STORAGE: 's3', ...source.env, CRM_DATA_DIR: instanceDataDir(tmp(), 'bk') });
      const session = await sessionFor(await createUser({ role: 'member' }));
      for (const month of [1, 2]) {
        const content = pdfFixture(20_000 + month);
        const res = await uploadRequest(app, session, { file: { filename: `vykaz-${month}.pdf`, content }, year: 2024, month });
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        files.set((await Timesheet.findByPk(res.body.data.timesheet.id as string))!.filePath, content);
      }
      archive = path.join(instanceDataDir(tmp(), 'archives'), 'with-objects.tar.gz');
      const summary = await cliJson<{ files: number; missingFiles: string[] }>(['db', 'backup', archive], undefined, cliEnv({ CRM_STORAGE: 's3', ...source.env }));
      // Every object of ours is in the archive; rows of other tests' local files are reported missing, not fatal.
      expect(summary.files).to.be.at.least(files.size);
      for (const key of files.keys()) expect(summary.missingFiles).not.to.include(key);
    });

    it('restores into a database with local storage: the objects become files of the new data directory', async () => {
      const target = await freshDatabase('rs3local', { migrated: false });
      cleanups.push(target.drop);
      const dataDir = instanceDataDir(tmp(), 'restored-local');
      const restored = await cliJson<{ files: number }>(['db', 'restore', archive], undefined, { ...target.env, CRM_DATA_DIR: dataDir });
      expect(restored.files).to.be.at.least(files.size);
      for (const [key, bytes] of files) expect(fs.readFileSync(path.join(dataDir, 'timesheets', key)).equals(bytes), key).to.equal(true);
    });

    it('restores into a database with S3 storage: the files land in the other bucket and leave no local copy', async () => {
      const target = await freshDatabase('rs3s3', { migrated: false });
      cleanups.push(target.drop);
      const other = await bucket('crm-rs');
      const dataDir = instanceDataDir(tmp(), 'restored-s3');
      await cliJson(['db', 'restore', archive], undefined, { ...target.env, CRM_DATA_DIR: dataDir, CRM_STORAGE: 's3', ...other.env });
      for (const [key, bytes] of files) expect((await bytesOf((await other.storage.store('timesheets').get(key)).stream)).equals(bytes), key).to.equal(true);
      expect(fs.readdirSync(path.join(dataDir, 'timesheets'))).to.deep.equal([]);
    });
  });

  describe('crm-admin timesheets migrate-storage', () => {
    it('moves every file to the bucket, resumes after being killed half-way, and copies nothing twice', async () => {
      const { env: s3, storage: target } = await bucket('crm-mig');
      const dataDir = instanceDataDir(tmp(), 'migrate');
      const local = new LocalFileStorage(dataDir);
      const originals = new Map<string, Buffer>();
      for (let i = 0; i < 40; i++) {
        const bytes = crypto.randomBytes(256 * 1024 + i);
        const stored = await local.store('timesheets').put(Readable.from([bytes]));
        originals.set(stored.key, bytes);
      }
      const env = cliEnv({ CRM_DATA_DIR: dataDir, ...s3 });

      // The real process, killed (SIGKILL: no cleanup of its own) once the first files arrived.
      const child = spawn(crmAdmin, ['timesheets', 'migrate-storage', '--to', 's3', '--json'], { env: { ...childEnv(), LOG_LEVEL: 'error', ...env }, stdio: 'ignore' });
      const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
      await until(async () => (await keysIn(target)).length > 0 || child.exitCode !== null, { timeoutMs: 120_000, what: 'the first files in the bucket' });
      child.kill('SIGKILL');
      const status = await exited;
      const afterKill = (await keysIn(target)).length;

      const summary = await cliJson<{ copied: number; skipped: number; removed: number }>(['timesheets', 'migrate-storage', '--to', 's3'], undefined, env);
      expect(summary.copied + summary.skipped).to.equal(originals.size);
      // What the killed run copied (whole: writes are atomic) is not copied again.
      expect(summary.skipped).to.be.at.least(status === 0 ? originals.size : afterKill);
      expect(await keysIn(target)).to.deep.equal([...originals.keys()].sort());
      for (const [key, bytes] of originals) expect((await bytesOf((await target.store('timesheets').get(key)).stream)).equals(bytes), key).to.equal(true);

      // Idempotent: a third run copies nothing.
      const again = await cliJson<{ copied: number; skipped: number }>(['timesheets', 'migrate-storage', '--to', 's3'], undefined, env);
      expect(again).to.include({ copied: 0, skipped: originals.size });

      // The source goes only once the service reads the target.
      const refused = await cli(['timesheets', 'migrate-storage', '--to', 's3', '--remove-source'], undefined, env);
      expect(refused.status).to.equal(1);
      expect(refused.stderr).to.match(/CRM_STORAGE=s3/);
      expect(await keysIn(local)).to.have.length(originals.size);
      const moved = await cliJson<{ removed: number }>(['timesheets', 'migrate-storage', '--to', 's3', '--remove-source'], undefined, { ...env, CRM_STORAGE: 's3' });
      expect(moved.removed).to.equal(originals.size);
      expect(await keysIn(local)).to.deep.equal([]);

      // And back: --to local brings every file home with its bytes.
      const home = await cliJson<{ copied: number }>(['timesheets', 'migrate-storage', '--to', 'local'], undefined, { ...env, CRM_STORAGE: 's3' });
      expect(home.copied).to.equal(originals.size);
      for (const [key, bytes] of originals) expect(fs.readFileSync(path.join(dataDir, 'timesheets', key)).equals(bytes), key).to.equal(true);
    });

    it('refuses --to s3 without the bucket settings (exit 1), changing nothing', async () => {
      const res = await cli(['timesheets', 'migrate-storage', '--to', 's3'], undefined, cliEnv({ CRM_DATA_DIR: instanceDataDir(tmp(), 'nos3') }));
      expect(res.status).to.equal(1);
      expect(res.stderr).to.match(/CRM_S3_BUCKET/);
    });
  });

  describe('crm-admin doctor with CRM_STORAGE=s3', () => {
    interface Check {
      name: string;
      status: string;
      summary: string;
      fix?: string;
    }
    async function storageCheck(overrides: Record<string, string>): Promise<{ check: Check; output: string }> {
      const res = await runCli(['doctor', '--json'], cliEnv({ CRM_STORAGE: 's3', ...overrides }), undefined, 120_000);
      const report = JSON.parse(res.stdout) as { checks: Check[] };
      return { check: report.checks.find((c) => c.name === 'storage')!, output: res.stdout + res.stderr };
    }

    it('finds the bucket reachable, the keys accepted and the bucket writable, and leaves no probe behind', async () => {
      const { env, storage } = await bucket('crm-doc');
      const { check } = await storageCheck({ ...env });
      expect(check.status, check.summary).to.equal('ok');
      expect(check.summary)
        .to.contain(env.CRM_S3_BUCKET)
        .and.to.match(/writable/);
      expect(await keysIn(storage)).to.deep.equal([]);
    });

    it('fails on a bucket that does not exist, on a wrong secret and on a wrong access key, naming the fix and never the secret', async () => {
      const { env } = await bucket('crm-doc');
      const cases: Array<[string, Record<string, string>, RegExp]> = [
        ['no such bucket', { CRM_S3_BUCKET: `crm-missing-${crypto.randomBytes(4).toString('hex')}` }, /no-bucket/],
        ['wrong secret', { CRM_S3_SECRET_ACCESS_KEY: 'wrong-secret-wrong-secret' }, /credentials/],
        ['wrong access key', { CRM_S3_ACCESS_KEY_ID: 'nobody:nobody' }, /credentials|denied/],
        ['nothing listening', { CRM_S3_ENDPOINT: 'http://127.0.0.1:9' }, /unreachable/],
      ];
      for (const [what, change, problem] of cases) {
        const { check, output } = await storageCheck({ ...env, ...change });
        expect(check.status, what).to.equal('fail');
        expect(check.summary, what).to.match(problem);
        expect(check.fix, what).to.match(/CRM_S3_/);
        for (const secret of [env.CRM_S3_SECRET_ACCESS_KEY, 'wrong-secret-wrong-secret']) expect(output, what).not.to.contain(secret);
      }
    });
  });
});
