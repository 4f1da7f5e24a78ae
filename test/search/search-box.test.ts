/**
 * GET /api/search (issue 49): one search box answers people, companies and conversations, each as its
 * own list finds them with the same words, so scoped exactly as those lists are: the owner, a member
 * with canRead, a viewer without it, a member whose share was revoked and a stranger each get what
 * their lists give. Bad input is a 400 in Slovak; an API token searches only the kinds its scopes cover.
 */
import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import { Contact, type EmailAccount } from '../../src/models/index.js';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createEmail, createEmailAccount } from '../support/email-factories.js';
import { createUser, type UserFixture } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';

interface Caller {
  id: string;
  fixture: UserFixture;
  session: TestSession;
}

describe('one search box: GET /api/search', function () {
  this.timeout(120_000);
  const run = randomBytes(4).toString('hex');
  const DOMAIN = `logistika${run}.sk`;
  let app: Express;
  let account: EmailAccount;
  const callers: Record<'owner' | 'reader' | 'viewer' | 'revoked' | 'stranger', Caller> = {} as never;

  before(async () => {
    app = await testApp();
    const ctx = await testContext();
    for (const name of ['owner', 'reader', 'viewer', 'revoked', 'stranger'] as const) {
      const user = await createUser();
      callers[name] = { id: user.user.id, fixture: user, session: await sessionFor(user) };
    }
    account = await createEmailAccount(callers.owner.fixture);
    // Contacts through the API: the service files them under their domain's company (Tatra Logistika).
    for (const [email, name] of [
      [`jan@${DOMAIN}`, 'Ján Logistiky'],
      [`eva@${DOMAIN}`, 'Eva Kováčová'],
    ]) {
      const res = await request(app).post('/api/contacts').set('Authorization', callers.owner.session.bearer).send({ emailAccountId: account.id, email, name });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
    const peter = await request(app)
      .post('/api/contacts')
      .set('Authorization', callers.owner.session.bearer)
      .send({ emailAccountId: account.id, email: `peter@${DOMAIN}`, name: 'Peter Dopravca' })
      .expect(201);
    const jan = (await Contact.findByPk((peter.body.data.contact ?? peter.body.data).id as string))!;
    for (const [i, subject] of [`Reklamácia faktúry ${run}`, `Preprava paliet ${run}`, `Logistika a sklady ${run}`].entries()) {
      await createEmail(account, jan, { subject, body: 'Dobrý deň, posielam podklady.', threadId: `T${run}${i}`, date: new Date(Date.UTC(2026, 10, 1 + i)) });
    }
    // The company's shared fields are shown (and changed) only through mail the caller may read (ADR 0136): after Peter's
    // mail, which the factory stores without the sync's bookkeeping of the contact's newest mail.
    await ctx.db.sequelize.query('UPDATE contacts SET last_email_at = (SELECT max(date) FROM emails WHERE contact_id = $1) WHERE id = $1', { bind: [jan.id] });
    const companyId = (await ctx.db.sequelize.query<{ id: string }>('SELECT id FROM companies WHERE domain = $1', { bind: [DOMAIN], type: 'SELECT' as never }))[0].id;
    await request(app)
      .patch(`/api/companies/${companyId}`)
      .set('Authorization', callers.owner.session.bearer)
      .send({ name: `Tatra Logistika ${run}` })
      .expect(200);
    const share = (who: Caller, canRead: boolean) =>
      ctx.services.emailAccountSharing.share({ kind: 'admin' }, account.id, { userId: who.id, role: 'viewer', canRead, canSend: false }, { actor: 'test' });
    await share(callers.reader, true);
    await share(callers.viewer, false);
    await share(callers.revoked, true);
    await ctx.services.emailAccountSharing.unshare({ kind: 'admin' }, account.id, callers.revoked.id, { actor: 'test' });
  });

  const ids = (items: Array<{ id: string }>) => items.map((i) => i.id);

  async function lists(who: Caller, q: string, limit: number) {
    const get = (path: string, query: Record<string, unknown>) => request(app).get(path).query(query).set('Authorization', who.session.bearer);
    const people = await get('/api/people', { search: q, limit });
    const companies = await get('/api/companies', { search: q, limit });
    const conversations = await get('/api/conversations', { search: q, status: 'all', limit });
    const asList = (res: request.Response) => (res.status === 200 ? ids(res.body.data.items) : []);
    return { people: asList(people), companies: asList(companies), conversations: asList(conversations) };
  }

  it('answers for every caller exactly what their people, companies and conversations lists answer for the same words', async () => {
    let seen = 0;
    for (const q of [`logistika${run}`, `${run}`, `faktúra ${run}`, `palety ${run}`, `logistiky ${run}`, 'nikde-nic']) {
      for (const [name, who] of Object.entries(callers)) {
        const res = await request(app).get('/api/search').query({ q, limit: 5 }).set('Authorization', who.session.bearer).expect(200);
        const got = { people: ids(res.body.data.people), companies: ids(res.body.data.companies), conversations: ids(res.body.data.conversations) };
        expect(got, `${name}: ${q}`).to.deep.equal(await lists(who, q, 5));
        seen += got.people.length + got.companies.length + got.conversations.length;
      }
    }
    expect(seen).to.be.above(0);
  });

  it('finds people, companies and conversations by other word forms; the owner and a reader see the conversations, a viewer without canRead, a revoked member and a stranger do not', async () => {
    const search = async (who: Caller, q: string) => (await request(app).get('/api/search').query({ q }).set('Authorization', who.session.bearer).expect(200)).body.data;
    const owner = await search(callers.owner, `logistiky ${run}`);
    expect(owner.companies.map((c: { name: string }) => c.name)).to.deep.equal([`Tatra Logistika ${run}`]);
    expect((await search(callers.owner, `faktúra ${run}`)).conversations).to.have.length(1);
    expect((await search(callers.owner, `palety ${run}`)).conversations).to.have.length(1);
    expect((await search(callers.owner, `kovacova`)).people.flatMap((p: { emails: string[] }) => p.emails)).to.include(`eva@${DOMAIN}`);
    expect((await search(callers.reader, `faktúra ${run}`)).conversations).to.have.length(1);
    for (const who of [callers.viewer, callers.revoked, callers.stranger]) expect((await search(who, `faktúra ${run}`)).conversations).to.deep.equal([]);
    for (const who of [callers.revoked, callers.stranger]) {
      const data = await search(who, `logistika${run}`);
      expect(data).to.deep.equal({ people: [], companies: [], conversations: [] });
    }
  });

  it('ranks each kind as its list does and answers at most limit of each', async () => {
    const res = await request(app).get('/api/search').query({ q: run, limit: 2 }).set('Authorization', callers.owner.session.bearer).expect(200);
    expect(res.body.data.conversations.map((c: { subject: string }) => c.subject)).to.deep.equal([`Logistika a sklady ${run}`, `Preprava paliet ${run}`]);
    for (const kind of ['people', 'companies', 'conversations']) expect(res.body.data[kind].length).to.be.at.most(2);
  });

  it('refuses an empty, missing or overlong text and a bad limit with 400 and a Slovak message', async () => {
    for (const query of [
      { q: '' },
      { q: '   ' },
      {},
      { q: 'x'.repeat(201) },
      { q: 'faktura', limit: 0 },
      { q: 'faktura', limit: 21 },
      { q: 'faktura', limit: 'veľa' },
      { q: 'a', extra: 1 },
    ]) {
      const res = await request(app).get('/api/search').query(query).set('Authorization', callers.owner.session.bearer);
      expect(res.status, JSON.stringify(query)).to.equal(400);
      expect(res.body.success).to.equal(false);
      expect(res.body.error.code).to.equal('validation_failed');
    }
    await request(app).get('/api/search').query({ q: 'faktura' }).expect(401);
  });

  it('searches with an API token only the kinds its read scopes cover; a token with none of them is refused', async () => {
    const token = async (scopes: string[]) =>
      (
        await request(app)
          .post('/api/tokens')
          .set('Authorization', callers.owner.session.bearer)
          .send({ name: `t ${randomUUID()}`, scopes })
          .expect(201)
      ).body.data.token as string;
    const companiesOnly = await token(['companies:read']);
    const res = await request(app)
      .get('/api/search')
      .query({ q: `logistika${run}` })
      .set('Authorization', `Bearer ${companiesOnly}`)
      .expect(200);
    expect(res.body.data.companies).to.have.length(1);
    expect(res.body.data.people).to.deep.equal([]);
    expect(res.body.data.conversations).to.deep.equal([]);
    const everything = await token(['people:read', 'companies:write', 'conversations:read']);
    const all = await request(app)
      .get('/api/search')
      .query({ q: `logistika${run}` })
      .set('Authorization', `Bearer ${everything}`)
      .expect(200);
    expect(all.body.data.people.length).to.be.above(0);
    const mailOnly = await token(['emails:read']);
    const refused = await request(app).get('/api/search').query({ q: 'faktura' }).set('Authorization', `Bearer ${mailOnly}`).expect(403);
    expect(refused.body.error.code).to.equal('insufficient_scope');
  });
});
