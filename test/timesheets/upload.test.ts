import { expect } from 'chai';
import type { Express } from 'express';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { AuditActions } from '../../src/audit/audit-service.js';
import { AuditLog, Timesheet } from '../../src/models/index.js';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createUser, type UserFixture } from '../support/factories.js';
import { testApp } from '../support/harness.js';
import { docFixture, docxFixture, elfFixture, MAX_BYTES, mzFixture, pdfFixture, xlsFixture, xlsxFixture } from './fixtures.js';
import { expectEveryFileReferenced, expectNoStrayFiles, multipartBody, storedFiles, timesheetDir, uploadRequest } from './helpers.js';

describe('timesheet upload (POST /api/timesheets/upload)', function () {
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

  describe('accepted files', () => {
    const cases: Array<[string, () => Buffer, string, string]> = [
      ['a PDF', () => pdfFixture(), 'vykaz.pdf', 'pdf'],
      ['an XLSX workbook', () => xlsxFixture(), 'vykaz.xlsx', 'xlsx'],
      ['an XLS (BIFF8) workbook', () => xlsFixture(), 'vykaz.xls', 'xls'],
      ['an upper-case extension', () => pdfFixture(), 'VYKAZ.PDF', 'pdf'],
    ];
    for (const [what, content, filename, fileType] of cases) {
      it(`stores ${what} under a generated name and answers 201 with the record`, async () => {
        const bytes = content();
        const before = await storedFiles();
        // The client's MIME type is deliberately wrong: it must not matter.
        const res = await uploadRequest(app, session, { file: { filename, content: bytes, contentType: 'text/plain' }, year: 2026, month: 5 });
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        expect(res.body.success).to.equal(true);
        expect(res.body.message).to.equal('Výkaz bol úspešne nahraný');
        expect(Object.keys(res.body.data)).to.deep.equal(['timesheet']);
        const data = res.body.data.timesheet;
        expect(Object.keys(data).sort()).to.deep.equal(['createdAt', 'fileName', 'fileSize', 'fileType', 'id', 'month', 'updatedAt', 'userId', 'year'].sort());
        expect(data).to.include({ userId: member.user.id, fileName: filename, fileType, fileSize: bytes.length, year: 2026, month: 5 });

        const after = await storedFiles();
        const added = after.filter((f) => !before.includes(f));
        expect(added).to.have.length(1);
        expect(added[0]).not.to.contain('vykaz');
        const row = await Timesheet.findByPk(data.id);
        expect(row!.filePath).to.equal(added[0]);
        expect(fs.readFileSync(path.join(await timesheetDir(), added[0])).equals(bytes)).to.equal(true);
      });
    }

    it('accepts exactly 10 MB (10 * 1024 * 1024 bytes)', async () => {
      const bytes = pdfFixture(MAX_BYTES);
      expect(bytes.length).to.equal(MAX_BYTES);
      const res = await uploadRequest(app, session, { file: { filename: 'velky.pdf', content: bytes }, year: 2026, month: 4 });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body.data.timesheet.fileSize).to.equal(MAX_BYTES);
    });

    it('records an audit entry for the upload', async () => {
      const res = await uploadRequest(app, session, { file: { filename: 'audit.pdf', content: pdfFixture() }, year: 2026, month: 3 });
      expect(res.status).to.equal(201);
      const entries = await AuditLog.findAll({ where: { action: AuditActions.timesheetUploaded, userId: member.user.id } });
      const entry = entries.find((e) => (e.details as Record<string, unknown>).timesheetId === res.body.data.timesheet.id);
      expect(entry, 'audit entry').to.exist;
      expect(entry!.success).to.equal(true);
      expect(entry!.details).to.include({ fileName: 'audit.pdf', fileType: 'pdf', year: 2026, month: 3 });
    });
  });

  describe('file names', () => {
    it('strips path components from a traversal attempt and stores under a generated name', async () => {
      const before = await storedFiles();
      const res = await uploadRequest(app, session, { file: { filename: '../../etc/passwd.pdf', content: pdfFixture() }, year: 2026, month: 2 });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body.data.timesheet.fileName).to.equal('passwd.pdf');
      const added = (await storedFiles()).filter((f) => !before.includes(f));
      expect(added).to.have.length(1);
      expect(fs.existsSync(path.join(await timesheetDir(), '..', '..', 'etc', 'passwd.pdf'))).to.equal(false);
    });

    it('keeps quotes and non-ASCII letters and drops invisible format characters', async () => {
      const res = await uploadRequest(app, session, {
        file: { filename: 'Výkaz "máj" 2026\u202e.pdf', content: pdfFixture() },
        year: 2026,
        month: 5,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body.data.timesheet.fileName).to.equal('Výkaz "máj" 2026.pdf');
    });

    it('shortens an overlong name but keeps its extension', async () => {
      const res = await uploadRequest(app, session, { file: { filename: `${'č'.repeat(400)}.xlsx`, content: xlsxFixture() }, year: 2026, month: 5 });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(Array.from(res.body.data.timesheet.fileName as string)).to.have.length(200);
      expect(res.body.data.timesheet.fileName).to.match(/^č+\.xlsx$/);
    });
  });

  describe('rejected files (400, nothing left on disk)', () => {
    const cases: Array<[string, () => Buffer, string, string]> = [
      ['an ELF executable named .pdf', elfFixture, 'vykaz.pdf', 'Obsah súboru nezodpovedá'],
      ['a Windows (MZ) executable named .pdf', mzFixture, 'vykaz.pdf', 'Obsah súboru nezodpovedá'],
      ['a PDF named .exe', () => pdfFixture(), 'vykaz.exe', 'Povolené sú len súbory PDF, XLSX a XLS'],
      ['a file without an extension', () => pdfFixture(), 'vykaz', 'Povolené sú len súbory PDF, XLSX a XLS'],
      ['an empty .pdf', () => Buffer.alloc(0), 'vykaz.pdf', 'Súbor je prázdny'],
      ['a Word .doc renamed .xls', docFixture, 'vykaz.xls', 'Obsah súboru nezodpovedá'],
      ['a .docx renamed .xlsx', docxFixture, 'vykaz.xlsx', 'Obsah súboru nezodpovedá'],
      ['an XLSX named .xls', xlsxFixture, 'vykaz.xls', 'Obsah súboru nezodpovedá'],
      ['an XLS named .xlsx', xlsFixture, 'vykaz.xlsx', 'Obsah súboru nezodpovedá'],
      ['a PDF named .xlsx', () => pdfFixture(), 'vykaz.xlsx', 'Obsah súboru nezodpovedá'],
      ['plain text named .pdf', () => Buffer.from('hello, not a pdf'), 'vykaz.pdf', 'Obsah súboru nezodpovedá'],
      ['a CFB header with garbage behind it named .xls', () => Buffer.concat([docFixture().subarray(0, 512), Buffer.alloc(2048, 0xff)]), 'vykaz.xls', 'Obsah súboru nezodpovedá'],
    ];
    for (const [what, content, filename, message] of cases) {
      it(`rejects ${what}`, async () => {
        const before = await storedFiles();
        const rowsBefore = await Timesheet.count({ where: { userId: member.user.id } });
        const res = await uploadRequest(app, session, { file: { filename, content: content(), contentType: 'application/pdf' }, year: 2026, month: 5 });
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        expect(res.body.success).to.equal(false);
        expect(res.body.error.statusCode).to.equal(400);
        expect(res.body.error.message).to.contain(message);
        await expectNoStrayFiles(before, what);
        expect(await Timesheet.count({ where: { userId: member.user.id } })).to.equal(rowsBefore);
      });
    }

    it('records a failed-upload audit entry for a disguised executable', async () => {
      const res = await uploadRequest(app, session, { file: { filename: 'malware-test.pdf', content: elfFixture() }, year: 2026, month: 5 });
      expect(res.status).to.equal(400);
      const entries = await AuditLog.findAll({ where: { action: AuditActions.timesheetUploaded, userId: member.user.id, success: false } });
      expect(entries.some((e) => (e.details as Record<string, unknown>).fileName === 'malware-test.pdf')).to.equal(true);
    });

    it('answers 413 in the error envelope for 10 MB + 1 byte', async () => {
      const before = await storedFiles();
      const bytes = Buffer.concat([pdfFixture(MAX_BYTES), Buffer.from('\n')]);
      const res = await uploadRequest(app, session, { file: { filename: 'velky.pdf', content: bytes }, year: 2026, month: 5 });
      expect(res.status).to.equal(413);
      expect(res.body).to.deep.equal({ success: false, error: { message: 'Súbor je príliš veľký (najviac 10 MB)', statusCode: 413, code: 'payload_too_large' } });
      await expectNoStrayFiles(before);
    });

    it('answers 413 before reading a body whose declared length is far over the limit', async () => {
      const before = await storedFiles();
      const { body, contentType } = multipartBody([{ name: 'year', value: '2026' }]);
      const res = await request(app)
        .post('/api/timesheets/upload')
        .set('Authorization', session.bearer)
        .set('Content-Type', contentType)
        .set('Content-Length', String(50 * 1024 * 1024))
        .send(body)
        .catch((err: { response?: request.Response }) => err.response!);
      expect(res.status).to.equal(413);
      expect(res.body.error.statusCode).to.equal(413);
      await expectNoStrayFiles(before);
    });
  });
});
