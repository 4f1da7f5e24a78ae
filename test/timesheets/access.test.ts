import { expect } from 'chai';
import type { Express } from 'express';
import { parse as parseContentDisposition } from 'content-disposition';
import crypto from 'node:crypto';
import request from 'supertest';
import { AuditActions } from '../../src/audit/audit-service.js';
import { AuditLog, Timesheet } from '../../src/models/index.js';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createUser, type UserFixture } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { pdfFixture, xlsFixture, xlsxFixture } from './fixtures.js';
import { binaryParser, expectEveryFileReferenced, expectNoStrayFiles, storedFiles, uploadRequest } from './helpers.js';

interface Uploaded {
  id: string;
  fileName: string;
  year: number;
  month: number;
  bytes: Buffer;
}

describe('timesheet list, download and delete', function () {
  this.timeout(60_000);
  let app: Express;
  let alice: UserFixture;
  let bob: UserFixture;
  let admin: UserFixture;
  let aliceSession: TestSession;
  let bobSession: TestSession;
  let adminSession: TestSession;

  async function upload(session: TestSession, filename: string, bytes: Buffer, year: number, month: number): Promise<Uploaded> {
    const res = await uploadRequest(app, session, { file: { filename, content: bytes }, year, month });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return { id: res.body.data.timesheet.id, fileName: res.body.data.timesheet.fileName, year, month, bytes };
  }

  const get = (path: string, session?: TestSession) => {
    const req = request(app).get(path);
    return session ? req.set('Authorization', session.bearer) : req;
  };
  const download = (id: string, session?: TestSession) => get(`/api/timesheets/${id}/download`, session).buffer(true).parse(binaryParser);
  const remove = (id: string, session?: TestSession) => {
    const req = request(app).delete(`/api/timesheets/${id}`);
    return session ? req.set('Authorization', session.bearer) : req;
  };

  before(async () => {
    app = await testApp();
    [alice, bob, admin] = await Promise.all([createUser(), createUser(), createUser({ role: 'admin' })]);
    [aliceSession, bobSession, adminSession] = await Promise.all([sessionFor(alice), sessionFor(bob), sessionFor(admin)]);
  });

  after(async () => {
    await expectEveryFileReferenced();
  });

  describe('GET /api/timesheets/my', () => {
    let own: Uploaded[];
    before(async () => {
      // Uploaded out of order on purpose: the list orders by period, not by upload time.
      own = [];
      for (const [year, month] of [
        [2025, 11],
        [2026, 2],
        [2025, 3],
        [2026, 2],
        [2026, 1],
      ] as const) {
        own.push(await upload(aliceSession, `alice-${year}-${month}.pdf`, pdfFixture(), year, month));
      }
      await upload(bobSession, 'bob.pdf', pdfFixture(), 2026, 2);
    });

    it('lists only the caller’s timesheets, newest period first, latest upload first within a period', async () => {
      const res = await get('/api/timesheets/my', aliceSession);
      expect(res.status).to.equal(200);
      expect(res.body.success).to.equal(true);
      expect(res.body.message).to.be.a('string');
      const { items, pagination } = res.body.data;
      expect(pagination).to.deep.equal({ page: 1, limit: 50, total: 5, totalExact: true, hasNext: false });
      expect(items.map((t: { id: string }) => t.id)).to.deep.equal([own[3].id, own[1].id, own[4].id, own[0].id, own[2].id]);
      for (const item of items) {
        expect(item.userId).to.equal(alice.user.id);
        expect(item).not.to.have.property('filePath');
      }
    });

    it('filters by year and month', async () => {
      const res = await get('/api/timesheets/my?year=2026&month=2', aliceSession);
      expect(res.body.data.items.map((t: { id: string }) => t.id)).to.deep.equal([own[3].id, own[1].id]);
      const byYear = await get('/api/timesheets/my?year=2025', aliceSession);
      expect(byYear.body.data.pagination.total).to.equal(2);
    });

    it('pages the result', async () => {
      const page2 = await get('/api/timesheets/my?page=2&limit=2', aliceSession);
      expect(page2.body.data.pagination).to.deep.equal({ page: 2, limit: 2, total: 5, totalExact: true, hasNext: true });
      expect(page2.body.data.items.map((t: { id: string }) => t.id)).to.deep.equal([own[4].id, own[0].id]);
      const beyond = await get('/api/timesheets/my?page=4&limit=2', aliceSession);
      expect(beyond.body.data.items).to.deep.equal([]);
    });

    it('rejects bad filters with 400', async () => {
      for (const query of ['year=abc', 'month=13', 'month=0', 'year=1999', 'limit=101', 'page=0', 'limit=-1']) {
        const res = await get(`/api/timesheets/my?${query}`, aliceSession);
        expect(res.status, query).to.equal(400);
        expect(res.body.error.statusCode, query).to.equal(400);
      }
    });

    it('answers 401 without credentials', async () => {
      const res = await get('/api/timesheets/my');
      expect(res.status).to.equal(401);
      expect(res.body.error.message).to.equal('Neautorizovaný prístup');
    });
  });

  describe('GET /api/timesheets/all', () => {
    let carol: UserFixture;
    let carolFiles: Uploaded[];
    before(async () => {
      carol = await createUser();
      const carolSession = await sessionFor(carol);
      carolFiles = [
        await upload(carolSession, 'c1.pdf', pdfFixture(), 2024, 6),
        await upload(carolSession, 'c2.xlsx', xlsxFixture(), 2024, 7),
        await upload(carolSession, 'c3.xls', xlsFixture(), 2024, 7),
      ];
    });

    it('lets an admin list everyone’s timesheets and filter by user, year and month', async () => {
      const all = await get('/api/timesheets/all?limit=100', adminSession);
      expect(all.status).to.equal(200);
      const owners = new Set(all.body.data.items.map((t: { userId: string }) => t.userId));
      expect(owners.size).to.be.greaterThan(1);

      const carols = await get(`/api/timesheets/all?userId=${carol.user.id}`, adminSession);
      expect(carols.body.data.pagination.total).to.equal(3);
      expect(carols.body.data.items.map((t: { id: string }) => t.id)).to.deep.equal([carolFiles[2].id, carolFiles[1].id, carolFiles[0].id]);

      const july = await get(`/api/timesheets/all?userId=${carol.user.id}&year=2024&month=7`, adminSession);
      expect(july.body.data.items.map((t: { fileType: string }) => t.fileType)).to.deep.equal(['xls', 'xlsx']);

      const page = await get(`/api/timesheets/all?userId=${carol.user.id}&limit=1&page=3`, adminSession);
      expect(page.body.data.pagination).to.deep.equal({ page: 3, limit: 1, total: 3, totalExact: true, hasNext: false });
      expect(page.body.data.items[0].id).to.equal(carolFiles[0].id);
    });

    it('answers an unknown user with an empty list and a malformed userId with 400', async () => {
      const unknown = await get(`/api/timesheets/all?userId=${crypto.randomUUID()}`, adminSession);
      expect(unknown.body.data).to.deep.equal({ items: [], pagination: { page: 1, limit: 50, total: 0, totalExact: true, hasNext: false } });
      const bad = await get('/api/timesheets/all?userId=not-a-uuid', adminSession);
      expect(bad.status).to.equal(400);
    });

    it('answers 403 to a member and 401 without credentials', async () => {
      const member = await get('/api/timesheets/all', aliceSession);
      expect(member.status).to.equal(403);
      expect(member.body).to.deep.equal({ success: false, error: { message: 'Prístup zamietnutý', statusCode: 403, code: 'forbidden' } });
      const anonymous = await get('/api/timesheets/all');
      expect(anonymous.status).to.equal(401);
    });
  });

  describe('GET /api/timesheets/:id/download', () => {
    const cases: Array<[string, () => Buffer, string, string]> = [
      ['a PDF', () => pdfFixture(), 'vykaz.pdf', 'application/pdf'],
      ['an XLSX', xlsxFixture, 'vykaz.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
      ['an XLS', xlsFixture, 'vykaz.xls', 'application/vnd.ms-excel'],
    ];
    for (const [what, content, filename, contentType] of cases) {
      it(`streams ${what} back byte for byte with its Content-Type, Content-Length and nosniff`, async () => {
        const uploaded = await upload(aliceSession, filename, content(), 2026, 5);
        const res = await download(uploaded.id, aliceSession);
        expect(res.status).to.equal(200);
        expect(res.headers['content-type']).to.equal(contentType);
        expect(res.headers['content-length']).to.equal(String(uploaded.bytes.length));
        expect(res.headers['x-content-type-options']).to.equal('nosniff');
        expect(res.headers['content-disposition']).to.equal(`attachment; filename=${filename}`);
        expect((res.body as Buffer).equals(uploaded.bytes)).to.equal(true);
      });
    }

    it('names a non-ASCII, quoted file per RFC 6266 (filename* in UTF-8, ASCII fallback)', async () => {
      const uploaded = await upload(aliceSession, 'Výkaz "máj" 2026.pdf', pdfFixture(), 2026, 5);
      expect(uploaded.fileName).to.equal('Výkaz "máj" 2026.pdf');
      const res = await download(uploaded.id, aliceSession);
      const header = res.headers['content-disposition'];
      expect(header).to.equal(`attachment; filename="Vykaz \\"maj\\" 2026.pdf"; filename*=UTF-8''V%C3%BDkaz%20%22m%C3%A1j%22%202026.pdf`);
      expect(/^[\x20-\x7e]*$/.test(header), 'header is plain ASCII').to.equal(true);
      const parsed = parseContentDisposition(header);
      expect(parsed.type).to.equal('attachment');
      expect(parsed.parameters.filename).to.equal('Výkaz "máj" 2026.pdf');
    });

    it('lets an admin download anyone’s file', async () => {
      const uploaded = await upload(bobSession, 'bob-admin.pdf', pdfFixture(), 2026, 5);
      const res = await download(uploaded.id, adminSession);
      expect(res.status).to.equal(200);
      expect((res.body as Buffer).equals(uploaded.bytes)).to.equal(true);
    });

    it('answers 404 for another member’s file, exactly as for an id that does not exist', async () => {
      const uploaded = await upload(bobSession, 'bob-private.pdf', pdfFixture(), 2026, 5);
      const foreign = await get(`/api/timesheets/${uploaded.id}/download`, aliceSession);
      const missing = await get(`/api/timesheets/${crypto.randomUUID()}/download`, aliceSession);
      expect(foreign.status).to.equal(404);
      expect(foreign.body).to.deep.equal(missing.body);
      expect(foreign.body).to.deep.equal({ success: false, error: { message: 'Výkaz neexistuje', statusCode: 404, code: 'not_found' } });
    });

    it('answers 400 for a non-UUID id and 401 without credentials', async () => {
      const bad = await get('/api/timesheets/123/download', aliceSession);
      expect(bad.status).to.equal(400);
      expect(bad.body.error.statusCode).to.equal(400);
      const uploaded = await upload(aliceSession, 'anon.pdf', pdfFixture(), 2026, 5);
      const anonymous = await get(`/api/timesheets/${uploaded.id}/download`);
      expect(anonymous.status).to.equal(401);
    });

    it('answers 404 in the envelope when the row exists but its file is gone', async () => {
      const uploaded = await upload(aliceSession, 'lost.pdf', pdfFixture(), 2026, 5);
      const row = await Timesheet.findByPk(uploaded.id);
      const { services } = await testContext();
      await services.timesheets.discard(row!.filePath);
      const res = await get(`/api/timesheets/${uploaded.id}/download`, aliceSession);
      expect(res.status).to.equal(404);
      expect(res.body.success).to.equal(false);
      await row!.destroy();
    });
  });

  describe('DELETE /api/timesheets/:id', () => {
    it('lets the owner delete: row, file and an audit record', async () => {
      const uploaded = await upload(aliceSession, 'delete-me.pdf', pdfFixture(), 2026, 5);
      const { filePath } = (await Timesheet.findByPk(uploaded.id))!;
      expect(await storedFiles()).to.include(filePath);
      const res = await remove(uploaded.id, aliceSession);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ success: true, message: 'Výkaz bol vymazaný' });
      expect(await Timesheet.findByPk(uploaded.id)).to.equal(null);
      expect(await storedFiles()).not.to.include(filePath);
      const audit = await AuditLog.findAll({ where: { action: AuditActions.timesheetDeleted, userId: alice.user.id } });
      expect(audit.some((a) => (a.details as Record<string, unknown>).timesheetId === uploaded.id)).to.equal(true);
      const again = await remove(uploaded.id, aliceSession);
      expect(again.status).to.equal(404);
    });

    it('answers 404 for another member’s timesheet and leaves it intact', async () => {
      const uploaded = await upload(bobSession, 'bob-keep.pdf', pdfFixture(), 2026, 5);
      const before = await storedFiles();
      const res = await remove(uploaded.id, aliceSession);
      expect(res.status).to.equal(404);
      expect(res.body).to.deep.equal({ success: false, error: { message: 'Výkaz neexistuje', statusCode: 404, code: 'not_found' } });
      await expectNoStrayFiles(before);
      const stillThere = await download(uploaded.id, bobSession);
      expect(stillThere.status).to.equal(200);
      expect((stillThere.body as Buffer).equals(uploaded.bytes)).to.equal(true);
    });

    it('lets an admin delete anyone’s timesheet', async () => {
      const uploaded = await upload(bobSession, 'bob-by-admin.pdf', pdfFixture(), 2026, 5);
      const { filePath } = (await Timesheet.findByPk(uploaded.id))!;
      const res = await remove(uploaded.id, adminSession);
      expect(res.status).to.equal(200);
      expect(await storedFiles()).not.to.include(filePath);
      const audit = await AuditLog.findAll({ where: { action: AuditActions.timesheetDeleted, userId: bob.user.id } });
      const entry = audit.find((a) => (a.details as Record<string, unknown>).timesheetId === uploaded.id);
      expect(entry!.actor).to.equal(`user:${admin.user.id}`);
    });

    it('answers 400 for a non-UUID id, 404 for an unknown one, 401 without credentials', async () => {
      expect((await remove('abc', aliceSession)).status).to.equal(400);
      expect((await remove(crypto.randomUUID(), aliceSession)).status).to.equal(404);
      const uploaded = await upload(aliceSession, 'anon-delete.pdf', pdfFixture(), 2026, 5);
      expect((await remove(uploaded.id)).status).to.equal(401);
      expect(await Timesheet.findByPk(uploaded.id)).not.to.equal(null);
    });
  });
});
