import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { AuditActions } from '../../src/audit/audit-service.js';
import { AuditLog, Timesheet } from '../../src/models/index.js';
import { cli, cliEnv, cliJson, storeTimesheet } from '../admin/cli-helpers.js';
import { spawnSync } from 'node:child_process';
import { childEnv, crmAdmin } from '../support/cli.js';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createUser, uniqueName, type UserFixture } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { readStoredZip } from './zip-reader.js';

/**
 * Collects a binary response body (supertest would otherwise parse or drop it). superagent hands the
 * parser the node response stream, though its types name its own Response.
 */
const binary = ((res: NodeJS.ReadableStream, done: (err: Error | null, body: Buffer) => void): void => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => done(null, Buffer.concat(chunks)));
}) as unknown as (res: request.Response, done: (err: Error | null, body: unknown) => void) => void;

interface ReportUser {
  userId: string;
  username: string;
  files: number;
  bytes: number;
  disabled: boolean;
}

describe('the month of timesheets for admins (report and export)', function () {
  this.timeout(120_000);
  let app: Express;
  let admin: UserFixture;
  let adminSession: TestSession;
  let jana: UserFixture;
  let peter: UserFixture;
  let idle: UserFixture;
  let leaver: UserFixture;
  // A period no other test uses: the month holds exactly this file's timesheets.
  const year = 2090 + Math.floor(Math.random() * 9);
  const month = 1 + Math.floor(Math.random() * 12);

  before(async () => {
    app = await testApp();
    admin = await createUser({ role: 'admin' });
    adminSession = await sessionFor(admin);
    jana = await createUser({ username: uniqueName('jana') });
    peter = await createUser({ username: uniqueName('peter') });
    idle = await createUser({ username: uniqueName('idle') });
    leaver = await createUser({ username: uniqueName('leaver') });
    await Timesheet.destroy({ where: { year, month } });
    await storeTimesheet(jana.user.id, year, month, 4000);
    await storeTimesheet(jana.user.id, year, month, 5000); // the same file name: "(2)" in the zip
    await storeTimesheet(peter.user.id, year, month, 3000);
    await storeTimesheet(peter.user.id, year, month === 12 ? 1 : month + 1, 3000); // another month: not included
    await storeTimesheet(leaver.user.id, year, month, 2000);
    await leaver.user.update({ disabledAt: new Date() });
    const gone = await createUser();
    await gone.user.update({ disabledAt: new Date() });
  });

  const asAdmin = (r: request.Test) => r.set('Authorization', adminSession.bearer);

  it('reports every active user with files and bytes, those with none as 0, and disabled users only with files', async () => {
    const res = await asAdmin(request(app).get('/api/admin/timesheets/report').query({ year, month }));
    expect(res.status).to.equal(200);
    const users = res.body.data.users as ReportUser[];
    const line = (u: UserFixture) => users.find((r) => r.userId === u.user.id);
    expect(line(jana)).to.include({ files: 2, disabled: false });
    expect(line(jana)!.bytes).to.equal(9000);
    expect(line(peter)).to.include({ files: 1, bytes: 3000 });
    expect(line(idle)).to.include({ files: 0, bytes: 0, disabled: false });
    expect(line(leaver)).to.include({ files: 1, bytes: 2000, disabled: true });
    expect(users.filter((u) => u.disabled).map((u) => u.userId)).to.deep.equal([leaver.user.id]);
    expect(res.body.data).to.deep.include({ year, month });
    expect(res.body.data.totals).to.include({ files: 4, bytes: 14000, usersWithFiles: 3, users: users.length });
  });

  it('exports the month as a zip with a folder per username, Content-Length exact, audited', async () => {
    const res = await asAdmin(request(app).get('/api/admin/timesheets/export').query({ year, month })).buffer(true).parse(binary);
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.equal('application/zip');
    expect(res.headers['content-disposition']).to.contain(`timesheets-${year}-${String(month).padStart(2, '0')}.zip`);
    const body = res.body as Buffer;
    expect(Number(res.headers['content-length'])).to.equal(body.length);
    const entries = readStoredZip(body);
    const name = `vykaz-${year}-${month}.pdf`;
    const names = entries.map((e) => e.name);
    expect(names).to.have.members([`${jana.username}/${name}`, `${jana.username}/vykaz-${year}-${month} (2).pdf`, `${peter.username}/${name}`, `${leaver.username}/${name}`]);
    const ctx = await testContext();
    for (const row of await Timesheet.findAll({ where: { userId: peter.user.id, year, month } })) {
      const stored = fs.readFileSync(path.join(ctx.config.timesheetDir, row.filePath));
      expect(entries.find((e) => e.name === `${peter.username}/${name}`)!.data.equals(stored)).to.equal(true);
    }
    const record = await AuditLog.findOne({ where: { action: AuditActions.timesheetsExported, actor: `user:${admin.user.id}` }, order: [['id', 'DESC']] });
    expect(record?.details).to.deep.include({ year, month, files: 4, bytes: 14000, missing: 0 });
  });

  it('leaves out a file missing from storage and exports an empty month as an empty zip', async () => {
    const empty = await asAdmin(request(app).get('/api/admin/timesheets/export').query({ year: 2001, month: 2 }))
      .buffer(true)
      .parse(binary);
    expect(empty.status).to.equal(200);
    expect(readStoredZip(empty.body as Buffer)).to.deep.equal([]);
    const lost = await createUser();
    const { file } = await storeTimesheet(lost.user.id, year, month, 1000);
    fs.rmSync(file);
    try {
      const res = await asAdmin(request(app).get('/api/admin/timesheets/export').query({ year, month })).buffer(true).parse(binary);
      expect(res.status).to.equal(200);
      expect(readStoredZip(res.body as Buffer).map((e) => e.name.split('/')[0])).not.to.include(lost.username);
    } finally {
      await Timesheet.destroy({ where: { userId: lost.user.id } });
    }
  });

  it('is for admins only and validates the month (400), never a 500', async () => {
    const member = await sessionFor(await createUser());
    for (const p of ['report', 'export']) {
      expect((await request(app).get(`/api/admin/timesheets/${p}`).query({ year, month })).status, p).to.equal(401);
      expect((await request(app).get(`/api/admin/timesheets/${p}`).query({ year, month }).set('Authorization', member.bearer)).status, p).to.equal(403);
      for (const query of [{}, { year }, { year, month: 13 }, { year: 1999, month: 1 }, { year: '2026.0', month: 1 }, { year, month, userId: admin.user.id }]) {
        const res = await asAdmin(request(app).get(`/api/admin/timesheets/${p}`).query(query));
        expect(res.status, `${p} ${JSON.stringify(query)}`).to.equal(400);
        expect(res.body.error.code).to.equal('validation_failed');
      }
    }
  });

  it('crm-admin timesheets report prints who is missing, and --json the same report', async () => {
    const out = await cliJson(['timesheets', 'report', '--year', String(year), '--month', String(month)]);
    const line = (u: UserFixture) => (out.users as ReportUser[]).find((r) => r.userId === u.user.id);
    expect(line(jana)).to.include({ files: 2, bytes: 9000 });
    expect(line(idle)).to.include({ files: 0 });
    const table = await cli(['timesheets', 'report', '--year', String(year), '--month', String(month)]);
    expect(table.status).to.equal(0);
    expect(table.stdout.split('\n').find((l) => l.startsWith(idle.username))).to.contain('MISSING');
    const bad = await cli(['timesheets', 'report', '--year', String(year), '--month', '13']);
    expect(bad.status).to.equal(1);
    expect(bad.stderr).to.contain('Mesiac musí byť');
  });

  it('crm-admin timesheets export writes the zip to a file (asking before replacing one) or to stdout', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-export-'));
    try {
      const out = path.join(dir, 'month.zip');
      const summary = await cliJson(['timesheets', 'export', '--year', String(year), '--month', String(month), '--out', out]);
      expect(summary).to.include({ files: 4, bytes: 14000, missing: 0, out });
      const zip = fs.readFileSync(out);
      expect(summary.size).to.equal(zip.length);
      expect(readStoredZip(zip).map((e) => e.name)).to.include(`${peter.username}/vykaz-${year}-${month}.pdf`);
      // The file exists now: no terminal and no --yes is a refusal, and the file stays as it was.
      const refused = await cli(['timesheets', 'export', '--year', String(year), '--month', String(month), '--out', out]);
      expect(refused.status).to.equal(2);
      expect(fs.readFileSync(out).equals(zip)).to.equal(true);
      expect(fs.readdirSync(dir)).to.deep.equal(['month.zip']);

      // Bytes, not text: the zip on stdout must arrive unchanged.
      const piped = spawnSync(crmAdmin, ['timesheets', 'export', '--year', String(year), '--month', String(month), '--out', '-'], {
        env: { ...childEnv(), LOG_LEVEL: 'error', ...cliEnv() },
        timeout: 60_000,
      });
      expect(piped.status, piped.stderr.toString()).to.equal(0);
      expect(piped.stderr.toString()).to.contain('Exported 4 file(s)');
      const fromStdout = piped.stdout;
      expect(
        readStoredZip(fromStdout)
          .map((e) => e.name)
          .sort(),
      ).to.deep.equal(
        readStoredZip(zip)
          .map((e) => e.name)
          .sort(),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
