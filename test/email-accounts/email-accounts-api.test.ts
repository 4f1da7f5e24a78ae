import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { testApp, testContext } from '../support/harness.js';
import { crmUser, freshMailUser, put, storedContacts, storedEmails, type CrmUser, type MailUser } from '../sync/helpers.js';

const BASE = '/api/email-accounts';

describe('email accounts API (/api/email-accounts)', function () {
  this.timeout(60_000);
  let app: Express;
  let ctx: AppContext;
  let first: MailUser;
  let second: MailUser;
  let stranger: CrmUser;

  /** No response may ever carry a mail password, in any field or form. */
  function expectNoSecrets(res: request.Response): void {
    const text = JSON.stringify(res.body);
    for (const secret of [first.pass, second.pass]) expect(text).not.to.include(secret);
    expect(text).not.to.match(/password/i);
  }

  before(async () => {
    app = await testApp();
    ctx = await testContext();
    [first, second] = await Promise.all([freshMailUser('api'), freshMailUser('api')]);
    await put(first, 'INBOX', { from: { name: 'Pavol', email: 'pavol@client.example' }, to: first.user, subject: 'Hello', body: 'Hi' });
    stranger = await crmUser();
  });

  /**
   * A fresh CRM user with both mailboxes attached over HTTP (the first one primary) and synced: what
   * each test after the first builds for itself, so any test runs alone or in any order.
   */
  async function ownerWithTwo(): Promise<{ owner: CrmUser; firstId: string; secondId: string }> {
    const owner = await crmUser();
    const add = async (mail: MailUser) => {
      const res = await owner.as(request(app).post(BASE)).send({ email: mail.user, emailPassword: mail.pass });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body.data.emailAccount.id as string;
    };
    const firstId = await add(first);
    const secondId = await add(second);
    await ctx.services.mailSync.whenIdle();
    return { owner, firstId, secondId };
  }

  it('answers 401 without a session on every endpoint', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    for (const [method, path] of [
      ['get', BASE],
      ['post', BASE],
      ['patch', `${BASE}/${id}`],
      ['delete', `${BASE}/${id}`],
      ['post', `${BASE}/${id}/sync`],
    ] as const) {
      const res = await request(app)[method](path).send({});
      expect(res.status, `${method} ${path}`).to.equal(401);
      expect(res.body.success).to.equal(false);
    }
  });

  it('adds an account validated against the server (201), the first one primary, and syncs it', async () => {
    const owner = await crmUser();
    const res = await owner.as(request(app).post(BASE)).send({ email: first.user.toUpperCase(), emailPassword: first.pass });
    expect(res.status).to.equal(201);
    expectNoSecrets(res);
    const account = res.body.data.emailAccount;
    expect(account).to.include({ email: first.user, jmapAccountId: first.user, isPrimary: true, isActive: true });
    expect(account.sync).to.have.keys('status', 'lastSuccessAt', 'lastAttemptAt', 'lastError', 'consecutiveFailures', 'nextAttemptAt');
    const firstId = account.id as string;
    await ctx.services.mailSync.whenIdle();
    expect((await storedContacts(ctx, firstId)).map((c) => c.email)).to.deep.equal(['pavol@client.example']);

    const more = await owner.as(request(app).post(BASE)).send({ email: second.user, emailPassword: second.pass });
    expect(more.status).to.equal(201);
    expect(more.body.data.emailAccount.isPrimary).to.equal(false);
    await ctx.services.mailSync.whenIdle();
  });

  it('refuses wrong credentials, duplicates and bad input with clear errors', async () => {
    const { owner } = await ownerWithTwo();
    const wrong = await owner.as(request(app).post(BASE)).send({ email: first.user, emailPassword: 'not-the-password' });
    expect(wrong.status).to.equal(409); // already linked: refused before asking the server
    const other = await freshMailUser('api');
    const bad = await stranger.as(request(app).post(BASE)).send({ email: other.user, emailPassword: 'not-the-password' });
    expect(bad.status).to.equal(400);
    expect(bad.body.error.message).to.equal('Nesprávny email alebo heslo k emailovému účtu');

    for (const body of [
      {},
      { email: 'nope', emailPassword: 'x' },
      { email: first.user },
      { email: first.user, emailPassword: 42 },
      { email: 'a'.repeat(300) + '@x.io', emailPassword: 'x' },
    ]) {
      const res = await owner.as(request(app).post(BASE)).send(body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error.details).to.be.an('array');
    }
    const malformed = await owner.as(request(app).post(BASE)).set('Content-Type', 'application/json').send('{"email": ');
    expect(malformed.status).to.equal(400);
    expect(malformed.body.success).to.equal(false);
  });

  it("lists only the caller's accounts, primary first, with their sync status and never a password", async () => {
    const { owner, firstId, secondId } = await ownerWithTwo();
    const res = await owner.as(request(app).get(BASE));
    expect(res.status).to.equal(200);
    expectNoSecrets(res);
    expect(res.body.data.pagination).to.deep.equal({ page: 1, limit: 50, total: 2, totalExact: true, hasNext: false });
    expect(res.body.data.items.map((a: { id: string }) => a.id)).to.deep.equal([firstId, secondId]);
    expect(res.body.data.items[0].sync.status).to.equal('ok');
    const paged = await owner.as(request(app).get(BASE).query({ page: 2, limit: 1 }));
    expect(paged.body.data.items.map((a: { id: string }) => a.id)).to.deep.equal([secondId]);
    expect((await owner.as(request(app).get(BASE).query({ limit: 101 }))).status).to.equal(400);
    const theirs = await stranger.as(request(app).get(BASE));
    expect(theirs.body.data.items).to.deep.equal([]);
  });

  it('changes primary, active state and credentials (re-validated) of own accounts', async () => {
    const { owner, firstId, secondId } = await ownerWithTwo();
    const primary = await owner.as(request(app).patch(`${BASE}/${secondId}`)).send({ isPrimary: true });
    expect(primary.status).to.equal(200);
    expectNoSecrets(primary);
    expect(primary.body.data.emailAccount.isPrimary).to.equal(true);
    const listed = await owner.as(request(app).get(BASE));
    expect(listed.body.data.items.map((a: { id: string; isPrimary: boolean }) => [a.id, a.isPrimary])).to.deep.equal([
      [secondId, true],
      [firstId, false],
    ]);

    const wrong = await owner.as(request(app).patch(`${BASE}/${firstId}`)).send({ emailPassword: 'definitely-wrong' });
    expect(wrong.status).to.equal(400);
    // The stored password is still the working one.
    expect((await ctx.services.mailSync.syncAccount(firstId)).outcome).to.equal('ok');
    const same = await owner.as(request(app).patch(`${BASE}/${firstId}`)).send({ emailPassword: first.pass });
    expect(same.status).to.equal(200);
    await ctx.services.mailSync.whenIdle();

    const off = await owner.as(request(app).patch(`${BASE}/${firstId}`)).send({ isActive: false });
    expect(off.body.data.emailAccount.isActive).to.equal(false);
    const syncOff = await owner.as(request(app).post(`${BASE}/${firstId}/sync`));
    expect(syncOff.status).to.equal(409);
    expect((await owner.as(request(app).patch(`${BASE}/${firstId}`)).send({ isActive: true })).status).to.equal(200);
    await ctx.services.mailSync.whenIdle();

    for (const body of [{}, { isPrimary: false }, { isActive: 'yes' }, { email: 'not-an-address' }]) {
      const res = await owner.as(request(app).patch(`${BASE}/${firstId}`)).send(body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
    }
  });

  it('starts a sync on request (202) and answers with the account and its status', async () => {
    const { owner, firstId } = await ownerWithTwo();
    const res = await owner.as(request(app).post(`${BASE}/${firstId}/sync`));
    expect(res.status).to.equal(202);
    expect(res.body.message).to.equal('Synchronizácia spustená');
    expect(res.body.data.emailAccount.id).to.equal(firstId);
    expect(['idle', 'syncing', 'ok']).to.include(res.body.data.emailAccount.sync.status);
    expectNoSecrets(res);
    await ctx.services.mailSync.whenIdle();
    const after = await owner.as(request(app).get(BASE));
    expect(after.body.data.items.find((a: { id: string }) => a.id === firstId).sync.status).to.equal('ok');
  });

  it("hides other users' accounts (404) and rejects ids that are not UUIDs (400)", async () => {
    const { owner, firstId } = await ownerWithTwo();
    for (const [method, path] of [
      ['patch', `${BASE}/${firstId}`],
      ['delete', `${BASE}/${firstId}`],
      ['post', `${BASE}/${firstId}/sync`],
    ] as const) {
      const res = await stranger.as(request(app)[method](path)).send({ isActive: false });
      expect(res.status, `${method} ${path}`).to.equal(404);
      const bad = await owner.as(request(app)[method](path.replace(firstId, 'not-a-uuid'))).send({ isActive: false });
      expect(bad.status, `${method} non-uuid`).to.equal(400);
    }
    const mine = await owner.as(request(app).get(BASE));
    expect(mine.body.data.items.find((a: { id: string }) => a.id === firstId).isActive).to.equal(true);
  });

  it('deletes an account with its contacts and emails; the other account becomes primary', async () => {
    const { owner, firstId, secondId } = await ownerWithTwo();
    await owner.as(request(app).patch(`${BASE}/${firstId}`)).send({ isPrimary: true });
    expect(await storedEmails(ctx, firstId)).to.have.length(1);
    const res = await owner.as(request(app).delete(`${BASE}/${firstId}`));
    expect(res.status).to.equal(200);
    expect(res.body.message).to.equal('Emailový účet odstránený');
    expect(await storedEmails(ctx, firstId)).to.deep.equal([]);
    expect(await storedContacts(ctx, firstId)).to.deep.equal([]);
    const left = await owner.as(request(app).get(BASE));
    expect(left.body.data.items.map((a: { id: string; isPrimary: boolean }) => [a.id, a.isPrimary])).to.deep.equal([[secondId, true]]);
    expect((await owner.as(request(app).delete(`${BASE}/${firstId}`))).status).to.equal(404);
  });
});
