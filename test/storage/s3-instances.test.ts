import crypto from 'node:crypto';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { StoredObjectNotFoundError } from '../../src/storage/file-storage.js';
import type { S3FileStorage } from '../../src/storage/s3-storage.js';
import { Timesheet } from '../../src/models/index.js';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createUser } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { bucketStorage, freshBucket, instanceDataDir, type S3Env } from '../support/s3-server.js';
import { testEnv } from '../support/test-env.js';
import { pdfFixture, xlsxFixture } from '../timesheets/fixtures.js';
import { uploadRequest } from '../timesheets/helpers.js';

/**
 * CRM_STORAGE=s3 over HTTP: two instances of the service, each with a data directory of its own (as two
 * hosts), on one database and one bucket of the real S3 server (scripts/s3/start.sh).
 */
describe('timesheet files in S3 (CRM_STORAGE=s3), across instances', function () {
  this.timeout(600_000);
  let s3: S3Env;
  let bucket: S3FileStorage;
  let dirA: string;
  let dirB: string;
  let appA: Express;
  let appB: Express;
  let session: TestSession;

  before(async () => {
    s3 = await freshBucket('crm-inst');
    bucket = await bucketStorage(s3);
    dirA = instanceDataDir(testEnv.tmpRoot ?? '/tmp', 'host-a');
    dirB = instanceDataDir(testEnv.tmpRoot ?? '/tmp', 'host-b');
    appA = await testApp({ CRM_STORAGE: 's3', ...s3, CRM_DATA_DIR: dirA });
    appB = await testApp({ CRM_STORAGE: 's3', ...s3, CRM_DATA_DIR: dirB });
    session = await sessionFor(await createUser({ role: 'member' }));
  });

  after(async () => {
    await bucket.close();
  });

  async function objectBytes(key: string): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of (await bucket.store('timesheets').get(key)).stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  it('uploads on one instance and downloads the same bytes on another whose data directory never saw the file', async () => {
    const bytes = xlsxFixture();
    const up = await uploadRequest(appA, session, { file: { filename: 'vykaz.xlsx', content: bytes }, year: 2026, month: 4 });
    expect(up.status, JSON.stringify(up.body)).to.equal(201);
    const id = up.body.data.timesheet.id as string;
    const row = await Timesheet.findByPk(id);
    // In the bucket under the store's prefix, and on neither host's disk.
    expect((await objectBytes(row!.filePath)).equals(bytes)).to.equal(true);
    for (const dir of [dirA, dirB]) expect(fs.existsSync(`${dir}/timesheets/${row!.filePath}`), dir).to.equal(false);

    const down = await request(appB)
      .get(`/api/timesheets/${id}/download`)
      .set('Authorization', session.bearer)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(down.status).to.equal(200);
    expect(Number(down.headers['content-length'])).to.equal(bytes.length);
    expect((down.body as Buffer).equals(bytes)).to.equal(true);
  });

  it('deleting the timesheet on one instance removes the object from the bucket; the other answers 404', async () => {
    const up = await uploadRequest(appA, session, { file: { filename: 'vykaz.pdf', content: pdfFixture() }, year: 2026, month: 3 });
    expect(up.status, JSON.stringify(up.body)).to.equal(201);
    const id = up.body.data.timesheet.id as string;
    const key = (await Timesheet.findByPk(id))!.filePath;
    expect(await bucket.store('timesheets').size(key)).to.be.above(0);

    const del = await request(appB).delete(`/api/timesheets/${id}`).set('Authorization', session.bearer);
    expect(del.status, JSON.stringify(del.body)).to.equal(200);
    expect(
      await bucket
        .store('timesheets')
        .size(key)
        .catch((e: unknown) => e),
    ).to.be.instanceOf(StoredObjectNotFoundError);
    const gone = await request(appA).get(`/api/timesheets/${id}/download`).set('Authorization', session.bearer);
    expect(gone.status).to.equal(404);
  });

  it('a rejected file (content does not match its name) leaves no object behind', async () => {
    const before = await keysIn(bucket);
    const res = await uploadRequest(appA, session, { file: { filename: 'vykaz.pdf', content: xlsxFixture() }, year: 2026, month: 2 });
    expect(res.status).to.equal(400);
    expect(await keysIn(bucket)).to.deep.equal(before);
  });

  it('a bucket that cannot be reached answers 503 with Retry-After in the contract envelope, and nothing is recorded', async () => {
    const app = await testApp({ CRM_STORAGE: 's3', ...s3, CRM_S3_ENDPOINT: 'http://127.0.0.1:9', CRM_DATA_DIR: dirA });
    const rows = await Timesheet.count();
    const res = await uploadRequest(app, session, { file: { filename: 'vykaz.pdf', content: pdfFixture() }, year: 2026, month: 1 });
    expect(res.status, JSON.stringify(res.body)).to.equal(503);
    expect(res.headers['retry-after']).to.match(/^\d+$/);
    expect(res.body.success).to.equal(false);
    expect(res.body.error.message).to.equal('Úložisko výkazov je dočasne nedostupné, skúste to neskôr');
    expect(JSON.stringify(res.body)).not.to.contain(s3.CRM_S3_SECRET_ACCESS_KEY);
    expect(await Timesheet.count()).to.equal(rows);
  });

  it('the orphan sweep removes an old object no row references, and keeps referenced and young ones', async () => {
    const ctx = await testContext({ CRM_STORAGE: 's3', ...s3, CRM_DATA_DIR: dirA });
    const up = await uploadRequest(appA, session, { file: { filename: 'vykaz.pdf', content: pdfFixture() }, year: 2025, month: 12 });
    expect(up.status).to.equal(201);
    const referenced = (await Timesheet.findByPk(up.body.data.timesheet.id as string))!.filePath;
    const orphan = await bucket.store('timesheets').put(Readable.from([crypto.randomBytes(1000)]));

    // Within the grace period (now): an upload may still be on its way to its row.
    const early = await ctx.services.storage.sweep(new Date());
    expect(early.removed).to.equal(0);
    expect(await bucket.store('timesheets').size(orphan.key)).to.equal(1000);

    // A day and more later: the orphan goes, the referenced file stays.
    const late = await ctx.services.storage.sweep(new Date(Date.now() + 25 * 3600 * 1000));
    expect(late.removed).to.be.at.least(1);
    expect(
      await bucket
        .store('timesheets')
        .size(orphan.key)
        .catch((e: unknown) => e),
    ).to.be.instanceOf(StoredObjectNotFoundError);
    expect(await bucket.store('timesheets').size(referenced)).to.be.above(0);
  });
});

async function keysIn(bucket: S3FileStorage): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of bucket.store('timesheets').list()) keys.push(object.key);
  return keys.sort();
}
