import { expect } from 'chai';
import { Timesheet } from '../../src/models/index.js';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createUser, type UserFixture } from '../support/factories.js';
import { testApp } from '../support/harness.js';
import { pdfFixture } from '../timesheets/fixtures.js';
import { expectEveryFileReferenced, expectNoStrayFiles, storedFiles, uploadRequest } from '../timesheets/helpers.js';

/**
 * Issue 13 (outside attack): no upload quota. A member filled the disk that also holds the embedded
 * database (20 x 10 MB in 2 s) and nothing stopped them: no per-user quota, no rate limit, no
 * free-space reserve.
 */
describe('attack: filling the disk with timesheet uploads', function () {
  this.timeout(120_000);

  async function member(): Promise<{ fixture: UserFixture; session: TestSession }> {
    const fixture = await createUser();
    return { fixture, session: await sessionFor(fixture) };
  }

  const upload = (app: Parameters<typeof uploadRequest>[0], session: TestSession, file = pdfFixture(), month = 5) =>
    uploadRequest(app, session, { file: { filename: 'vykaz.pdf', content: file }, year: 2026, month });

  after(async () => {
    await expectEveryFileReferenced();
  });

  it('a per-user quota of files (TIMESHEET_QUOTA_FILES): the next upload is refused, nothing stays on disk', async () => {
    const app = await testApp({ TIMESHEET_QUOTA_FILES: '3' });
    const { fixture, session } = await member();
    for (let i = 0; i < 3; i++) expect((await upload(app, session)).status).to.equal(201);
    const before = await storedFiles();
    const res = await upload(app, session);
    expect(res.status, JSON.stringify(res.body)).to.equal(403);
    expect(res.body.error.code).to.equal('quota_exceeded');
    expect(res.body.error.message).to.match(/limit/i);
    await expectNoStrayFiles(before);
    expect(await Timesheet.count({ where: { userId: fixture.user.id } })).to.equal(3);
    // Another member is not affected.
    expect((await upload(app, (await member()).session)).status).to.equal(201);
  });

  it('a parallel burst does not overrun the quota (checked again, under a lock, when the file is recorded)', async () => {
    const app = await testApp({ TIMESHEET_QUOTA_FILES: '3' });
    const { fixture, session } = await member();
    const before = await storedFiles();
    const statuses = (await Promise.all(Array.from({ length: 6 }, (_, i) => upload(app, session, pdfFixture(), 1 + i)))).map((r) => r.status);
    expect(
      statuses.filter((s) => s === 201),
      statuses.join(','),
    ).to.have.length(3);
    expect(
      statuses.filter((s) => s === 403),
      statuses.join(','),
    ).to.have.length(3);
    expect(await Timesheet.count({ where: { userId: fixture.user.id } })).to.equal(3);
    expect((await storedFiles()).length).to.equal(before.length + 3);
  });

  it('a per-user quota of bytes (TIMESHEET_QUOTA_MB)', async () => {
    const app = await testApp({ TIMESHEET_QUOTA_MB: '1' });
    const { session } = await member();
    const big = pdfFixture(400 * 1024);
    expect((await upload(app, session, big)).status).to.equal(201);
    expect((await upload(app, session, big)).status).to.equal(201);
    const res = await upload(app, session, big);
    expect(res.status).to.equal(403);
    expect(res.body.error.code).to.equal('quota_exceeded');
  });

  it('a rate limit (TIMESHEET_UPLOADS_PER_HOUR), also against a parallel burst; failed uploads do not use it up', async () => {
    const app = await testApp({ TIMESHEET_UPLOADS_PER_HOUR: '5' });
    const { session } = await member();
    for (let i = 0; i < 6; i++) expect((await upload(app, session, Buffer.from('not a pdf at all'))).status).to.equal(400);
    const statuses = (await Promise.all(Array.from({ length: 8 }, (_, i) => upload(app, session, pdfFixture(), 1 + i)))).map((r) => r.status);
    expect(
      statuses.filter((s) => s === 201),
      statuses.join(','),
    ).to.have.length(5);
    expect(
      statuses.filter((s) => s === 429),
      statuses.join(','),
    ).to.have.length(3);
    const limited = await upload(app, session);
    expect(limited.status).to.equal(429);
    expect(Number(limited.headers['retry-after'])).to.be.greaterThan(0);
  });

  it('below the free-space reserve (STORAGE_RESERVE_MB) uploads are refused with 507 and a Slovak message', async () => {
    const app = await testApp({ STORAGE_RESERVE_MB: String(1024 * 1024 * 1024) });
    const { session } = await member();
    const before = await storedFiles();
    const res = await upload(app, session);
    expect(res.status, JSON.stringify(res.body)).to.equal(507);
    expect(res.body).to.deep.equal({
      success: false,
      error: { message: 'Na serveri nie je dosť voľného miesta na uloženie súboru. Kontaktujte administrátora.', statusCode: 507, code: 'insufficient_storage' },
    });
    await expectNoStrayFiles(before);
  });
});
