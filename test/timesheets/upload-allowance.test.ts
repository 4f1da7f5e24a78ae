import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import { Timesheet } from '../../src/models/index.js';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createUser, type UserFixture } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { until } from '../support/poll.js';
import { pdfFixture } from './fixtures.js';
import { expectEveryFileReferenced, multipartBody, uploadRequest } from './helpers.js';

/**
 * Issue 35, item 4: the hourly upload rate (TIMESHEET_UPLOADS_PER_HOUR) counts stored uploads only. A
 * refused upload (429 at the door, or a file refused after it arrived) and an abandoned one (the client
 * went away mid-body) give their point back; a parallel burst still cannot store more than the limit.
 */
describe('timesheet uploads: only stored uploads use up the hourly allowance', function () {
  this.timeout(120_000);
  const LIMIT = 5;
  let app: Express;

  before(async () => {
    app = await testApp({ TIMESHEET_UPLOADS_PER_HOUR: String(LIMIT) });
  });
  after(async () => {
    await expectEveryFileReferenced();
  });

  async function member(): Promise<{ fixture: UserFixture; session: TestSession }> {
    const fixture = await createUser();
    return { fixture, session: await sessionFor(fixture) };
  }
  const upload = (session: TestSession, file = pdfFixture(), month = 5) => uploadRequest(app, session, { file: { filename: 'vykaz.pdf', content: file }, year: 2026, month });

  /** The points the rate counter holds for the user now (rate_limits, shared by every instance). */
  async function pointsUsed(userId: string): Promise<number> {
    const ctx = await testContext();
    const rows = await ctx.db.sequelize.query<{ points: number }>('SELECT points FROM rate_limits WHERE key = $key', {
      bind: { key: `timesheet_uploads:${userId}` },
      type: QueryTypes.SELECT,
    });
    return rows[0]?.points ?? 0;
  }

  /** Then the user can store exactly the rest of the hour's allowance, and not one more. */
  async function expectRemaining(session: TestSession, fixture: UserFixture, remaining: number, storedBefore: number): Promise<void> {
    for (let i = 0; i < remaining; i++) {
      const res = await upload(session, pdfFixture(), 1 + i);
      expect(res.status, `upload ${i + 1} of ${remaining}: ${JSON.stringify(res.body)}`).to.equal(201);
    }
    const limited = await upload(session);
    expect(limited.status).to.equal(429);
    expect(await Timesheet.count({ where: { userId: fixture.user.id } })).to.equal(storedBefore + remaining);
  }

  it('40 refused parallel uploads (429 at the door, or a file refused after it arrived) leave the allowance as it was', async () => {
    const { fixture, session } = await member();
    expect((await upload(session)).status).to.equal(201);
    const statuses = (await Promise.all(Array.from({ length: 40 }, () => upload(session, Buffer.from('not a pdf at all'))))).map((r) => r.status);
    expect(statuses.filter((s) => s !== 400 && s !== 429)).to.deep.equal([]);
    expect(statuses.filter((s) => s === 429).length, statuses.join(',')).to.be.greaterThan(0);
    expect(await pointsUsed(fixture.user.id)).to.equal(1);
    await expectRemaining(session, fixture, LIMIT - 1, 1);
  });

  it('40 abandoned parallel uploads leave the allowance as it was: the next uploads are stored, up to the limit', async () => {
    const { fixture, session } = await member();
    expect((await upload(session)).status).to.equal(201);

    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const { body, contentType } = multipartBody([
      { name: 'year', value: '2026' },
      { name: 'month', value: '6' },
      { name: 'file', filename: 'vykaz.pdf', content: pdfFixture(200 * 1024) },
    ]);
    const answered: number[] = [];
    const requests = Array.from({ length: 40 }, () => {
      const req = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/timesheets/upload',
        headers: { Authorization: session.bearer, 'Content-Type': contentType, 'Content-Length': String(body.length) },
      });
      req.on('response', (res) => {
        answered.push(res.statusCode ?? 0);
        res.resume();
      });
      req.on('error', () => undefined);
      // Half the body, then nothing more: the client has gone quiet.
      req.write(body.subarray(0, body.length / 2));
      return req;
    });
    try {
      // Those over the limit are answered at once; the admitted ones wait for the rest of the body.
      await until(() => answered.length >= 40 - (LIMIT - 1), { what: 'the uploads over the limit to be refused', timeoutMs: 20_000 });
      expect(answered.every((s) => s === 429)).to.equal(true);
      for (const req of requests) req.destroy();
      await until(async () => (await pointsUsed(fixture.user.id)) <= 1, { what: 'the abandoned uploads to give their points back', timeoutMs: 20_000 });
    } finally {
      for (const req of requests) req.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await expectRemaining(session, fixture, LIMIT - 1, 1);
  });

  it('a parallel burst of valid uploads still stores no more than the limit', async () => {
    const { fixture, session } = await member();
    const statuses = (await Promise.all(Array.from({ length: 12 }, (_, i) => upload(session, pdfFixture(), 1 + i)))).map((r) => r.status);
    expect(statuses.filter((s) => s === 201).length, statuses.join(',')).to.equal(LIMIT);
    expect(statuses.filter((s) => s === 429).length, statuses.join(',')).to.equal(12 - LIMIT);
    expect(await Timesheet.count({ where: { userId: fixture.user.id } })).to.equal(LIMIT);
    expect(await pointsUsed(fixture.user.id)).to.equal(LIMIT);
  });
});
