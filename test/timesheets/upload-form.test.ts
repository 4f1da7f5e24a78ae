import { expect } from 'chai';
import type { Express } from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import crypto from 'node:crypto';
import request from 'supertest';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createUser, type UserFixture } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { pdfFixture, xlsxFixture } from './fixtures.js';
import { eventually, expectEveryFileReferenced, expectNoStrayFiles, multipartBody, storedFiles, uploadRequest } from './helpers.js';

describe('timesheet upload: form, limits and failures', function () {
  this.timeout(60_000);
  let app: Express;
  let member: UserFixture;
  let session: TestSession;

  before(async () => {
    app = await testApp();
    member = await createUser({ role: 'member' });
    session = await sessionFor(member);
  });

  after(async () => {
    await expectEveryFileReferenced();
  });

  const pdf = () => ({ filename: 'vykaz.pdf', content: pdfFixture() });

  async function expectRejected(res: request.Response, status: number, before: string[], message?: string | RegExp) {
    expect(res.status, JSON.stringify(res.body)).to.equal(status);
    expect(res.headers['content-type']).to.match(/application\/json/);
    expect(res.body.success).to.equal(false);
    expect(res.body.error.statusCode).to.equal(status);
    if (typeof message === 'string') expect(res.body.error.message).to.equal(message);
    if (message instanceof RegExp) expect(res.body.error.message).to.match(message);
    await expectNoStrayFiles(before, JSON.stringify(res.body));
  }

  describe('year and month', () => {
    const bad: Array<[string, string | number | undefined, string | number | undefined, string]> = [
      ['month 0', 2026, 0, 'month'],
      ['month 13', 2026, 13, 'month'],
      ['month "abc"', 2026, 'abc', 'month'],
      ['month 1.5', 2026, '1.5', 'month'],
      ['year 1999', 1999, 5, 'year'],
      ['year 2101', 2101, 5, 'year'],
      ['year "abc"', 'abc', 5, 'year'],
      ['year "1e3"', '1e3', 5, 'year'],
      ['an empty year', '', 5, 'year'],
      ['a missing year', undefined, 5, 'year'],
      ['a missing month', 2026, undefined, 'month'],
    ];
    for (const [what, year, month, field] of bad) {
      it(`answers 400 for ${what} and removes the stored file`, async () => {
        const before = await storedFiles();
        const res = await uploadRequest(app, session, { file: pdf(), year, month });
        await expectRejected(res, 400, before, 'Neplatné údaje výkazu');
        expect(res.body.error.details.map((d: { field: string }) => d.field)).to.include(field);
      });
    }

    it('accepts the bounds 2000/1 and 2100/12', async () => {
      for (const [year, month] of [
        [2000, 1],
        [2100, 12],
      ] as const) {
        const res = await uploadRequest(app, session, { file: pdf(), year, month });
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        expect(res.body.data.timesheet).to.include({ year, month });
      }
    });

    it('takes the fields whether they come before or after the file', async () => {
      const { body, contentType } = multipartBody([
        { name: 'file', ...pdf() },
        { name: 'year', value: '2026' },
        { name: 'month', value: '7' },
      ]);
      const res = await request(app).post('/api/timesheets/upload').set('Authorization', session.bearer).set('Content-Type', contentType).send(body);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body.data.timesheet).to.include({ year: 2026, month: 7 });
    });
  });

  describe('the multipart form', () => {
    it('answers 400 when the file is missing', async () => {
      const before = await storedFiles();
      const res = await uploadRequest(app, session, { year: 2026, month: 5 });
      await expectRejected(res, 400, before, 'Súbor chýba (pole "file")');
    });

    it('answers 400 for a JSON body instead of a form', async () => {
      const before = await storedFiles();
      const res = await request(app).post('/api/timesheets/upload').set('Authorization', session.bearer).send({ year: 2026, month: 5 });
      await expectRejected(res, 400, before, 'Súbor chýba (pole "file")');
    });

    it('answers 400 for a file in another field', async () => {
      const before = await storedFiles();
      const res = await uploadRequest(app, session, { file: { ...pdf(), field: 'document' }, year: 2026, month: 5 });
      await expectRejected(res, 400, before, /v poli "file"/);
    });

    it('answers 400 for two files and keeps neither', async () => {
      const before = await storedFiles();
      const res = await uploadRequest(app, session, {
        file: pdf(),
        year: 2026,
        month: 5,
        extra: [{ name: 'file', filename: 'druhy.xlsx', content: xlsxFixture() }],
      });
      await expectRejected(res, 400, before, 'Nahrajte práve jeden súbor');
    });

    it('answers 400 for too many fields', async () => {
      const before = await storedFiles();
      const extra = Array.from({ length: 5 }, (_, i) => ({ name: `x${i}`, value: 'y' }));
      const res = await uploadRequest(app, session, { file: pdf(), year: 2026, month: 5, extra });
      await expectRejected(res, 400, before);
    });

    it('answers 400 for an oversized field value', async () => {
      const before = await storedFiles();
      const res = await uploadRequest(app, session, { file: pdf(), year: 2026, month: 5, extra: [{ name: 'note', value: 'x'.repeat(5000) }] });
      await expectRejected(res, 400, before, 'Hodnota poľa formulára je príliš dlhá');
    });

    it('answers 400 for a truncated form (no closing boundary), the partial file already gone', async () => {
      // Several cut points: the race between multer's error and the storage write differs with each.
      for (const cut of [20, 45, 60, 100, 200, 300]) {
        const before = await storedFiles();
        const { body, contentType } = multipartBody([
          { name: 'year', value: '2026' },
          { name: 'month', value: '5' },
          { name: 'file', ...pdf() },
        ]);
        const truncated = body.subarray(0, body.length - cut);
        const res = await request(app).post('/api/timesheets/upload').set('Authorization', session.bearer).set('Content-Type', contentType).send(truncated);
        await expectRejected(res, 400, before);
      }
    });

    it('answers 400 for a multipart content type without a boundary', async () => {
      const before = await storedFiles();
      const res = await request(app).post('/api/timesheets/upload').set('Authorization', session.bearer).set('Content-Type', 'multipart/form-data').send(Buffer.from('garbage'));
      await expectRejected(res, 400, before);
    });
  });

  describe('authentication', () => {
    it('answers 401 without credentials and stores nothing', async () => {
      const before = await storedFiles();
      const res = await uploadRequest(app, undefined, { file: pdf(), year: 2026, month: 5 });
      await expectRejected(res, 401, before, 'Neautorizovaný prístup');
    });

    it('answers 401 for a forged token and stores nothing', async () => {
      const before = await storedFiles();
      const { body, contentType } = multipartBody([{ name: 'file', ...pdf() }]);
      const res = await request(app).post('/api/timesheets/upload').set('Authorization', 'Bearer abc.def.ghi').set('Content-Type', contentType).send(body);
      await expectRejected(res, 401, before);
    });
  });

  describe('failures after the file was stored', () => {
    it('removes a partly received file when the client disconnects halfway', async () => {
      const server = http.createServer(app);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      try {
        const before = await storedFiles();
        const { body, contentType } = multipartBody([
          { name: 'year', value: '2026' },
          { name: 'month', value: '5' },
          { name: 'file', filename: 'prerusene.pdf', content: pdfFixture(4 * 1024 * 1024) },
        ]);
        const req = http.request({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/timesheets/upload',
          headers: { 'Content-Type': contentType, 'Content-Length': body.length, Authorization: session.bearer },
        });
        req.on('error', () => undefined); // the socket is destroyed on purpose
        req.write(body.subarray(0, body.length / 2));
        // Wait until the server is really writing the file, so the abort hits a stored, open file.
        await eventually(async () => (await storedFiles()).length > before.length, 'the upload to reach the disk');
        req.destroy();
        await eventually(async () => JSON.stringify(await storedFiles()) === JSON.stringify(before), 'the partial file to be removed');
        await expectNoStrayFiles(before);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it('removes the stored file when the database insert fails', async () => {
      const { services } = await testContext();
      const before = await storedFiles();
      const stored = await services.timesheets.receive(Readable.from([pdfFixture()]));
      expect(await storedFiles()).to.include(stored.key);
      // An owner that does not exist: the foreign key fails inside the transaction.
      const ghost = { userId: crypto.randomUUID(), role: 'member' as const };
      let failure: unknown;
      try {
        await services.timesheets.upload(ghost, { file: { ...stored, originalName: 'vykaz.pdf' }, year: 2026, month: 5 }, { actor: 'test' });
      } catch (err) {
        failure = err;
      }
      expect(failure, 'the insert must fail').to.be.instanceOf(Error);
      await expectNoStrayFiles(before);
    });

    it('removes the stored file when the service rejects the period', async () => {
      const { services } = await testContext();
      const before = await storedFiles();
      const stored = await services.timesheets.receive(Readable.from([pdfFixture()]));
      const actor = { userId: member.user.id, role: 'member' as const };
      let status: number | undefined;
      try {
        await services.timesheets.upload(actor, { file: { ...stored, originalName: 'vykaz.pdf' }, year: 2026, month: 13 }, { actor: 'test' });
      } catch (err) {
        status = (err as { statusCode?: number }).statusCode;
      }
      expect(status).to.equal(400);
      await expectNoStrayFiles(before);
    });
  });
});
