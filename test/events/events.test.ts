import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { QueryTypes } from 'sequelize';
import { EmailAccount } from '../../src/models/index.js';
import { sessionFor } from '../support/auth.js';
import { createUser } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { SseClient, type SseEvent } from '../support/sse-client.js';
import { createContact, createEmailAccount } from '../support/email-factories.js';
import { sharedMailbox, share, type SharedMailbox } from '../sharing/helpers.js';
import { crmUser, put, type CrmUser } from '../sync/helpers.js';

/**
 * GET /api/events over real HTTP against the real PostgreSQL and Cyrus: who gets which event, how
 * fast a colleague's read mark arrives, resume with Last-Event-ID, and streams that end or narrow
 * when a share or a session ends.
 */
describe('live updates: GET /api/events', function () {
  this.timeout(60_000);
  let server: http.Server;
  let base: string;
  let box: SharedMailbox;
  const open: SseClient[] = [];

  const stream = async (who: CrmUser, headers: Record<string, string> = {}) => {
    const client = await SseClient.open(`${base}/api/events`, { Authorization: who.session.bearer, ...headers });
    open.push(client);
    return client;
  };
  const ofAccount = (type: string, accountId: string) => (e: SseEvent) => e.event === type && e.data.emailAccountId === accountId;
  /** A contact of the user's own (DB-only) account: an event on their stream that follows everything before it. */
  const marker = async (who: CrmUser) => {
    const account = await createEmailAccount(who.fixture.user);
    const res = await who.as(request(box.app).post('/api/contacts')).send({ emailAccountId: account.id, email: `marker${Date.now()}@example.com` });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return account.id;
  };
  const firstEmailId = async () => {
    const res = await box.owner.as(request(box.app).get(`/api/emails?emailAccountId=${box.accountId}`));
    return res.body.data.items[0].id as string;
  };

  before(async () => {
    box = await sharedMailbox('events');
    server = http.createServer(await testApp());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(() => {
    for (const client of open.splice(0)) client.close();
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('refuses an unauthenticated stream with the 401 envelope', async () => {
    const res = await request(box.app).get('/api/events');
    expect(res.status).to.equal(401);
    expect(res.body.error.code).to.equal('authentication_required');
  });

  it('answers text/event-stream that no proxy buffers or caches', async () => {
    const client = await stream(box.owner);
    expect(client.status).to.equal(200);
    expect(client.res.headers['content-type']).to.equal('text/event-stream; charset=utf-8');
    expect(client.res.headers['x-accel-buffering']).to.equal('no');
    expect(client.res.headers['cache-control']).to.contain('no-cache');
    expect(client.res.headers['content-encoding']).to.equal(undefined);
  });

  it('owner and members get email.created after a sync; an outsider does not', async () => {
    const [owner, editor, viewer, outsider] = await Promise.all([box.owner, box.editor, box.viewer, box.outsider].map((u) => stream(u)));
    await put(box.mail, 'INBOX', { from: { name: 'Nový', email: 'novy@clients.example' }, to: box.mail.user, subject: 'Nová objednávka', body: 'Nová' });
    const synced = await box.owner.as(request(box.app).post(`/api/email-accounts/${box.accountId}/sync`));
    expect(synced.status, JSON.stringify(synced.body)).to.be.oneOf([200, 202]);
    await box.ctx.services.mailSync.whenIdle();

    const created = await owner.waitFor(ofAccount('email.created', box.accountId), 5000, 'email.created on the owner stream');
    expect(created.id).to.match(/^\d+$/);
    expect(created.data).to.have.keys('emailAccountId', 'count', 'ids');
    expect(created.data.count).to.equal(1);
    const [row] = await box.ctx.db.sequelize.query<{ id: string }>("SELECT id FROM emails WHERE email_account_id = $1 AND subject = 'Nová objednávka'", {
      bind: [box.accountId],
      type: QueryTypes.SELECT,
    });
    expect(created.data.ids).to.deep.equal([row.id]);
    await editor.waitFor(ofAccount('email.created', box.accountId), 5000, 'email.created on the editor stream');
    await viewer.waitFor(ofAccount('email.created', box.accountId), 5000, 'email.created on the viewer stream');
    // A run of a healthy account is no news (issue 45): no sync.status, only what it stored; no event carries a body.
    const ownMarker = await marker(box.owner);
    await owner.waitFor(ofAccount('contact.created', ownMarker), 5000, "the owner's own contact.created");
    expect(owner.events.filter(ofAccount('sync.status', box.accountId))).to.deep.equal([]);
    expect(JSON.stringify(owner.events)).to.not.contain('Nová');

    const mine = await marker(box.outsider);
    await outsider.waitFor(ofAccount('contact.created', mine), 5000, "the outsider's own contact.created");
    expect(outsider.events.filter((e) => e.data.emailAccountId === box.accountId)).to.deep.equal([]);
  });

  it('makes one coarse event (count, no ids) of a write touching more than 50 rows, and none of an unchanged refresh', async () => {
    const owner = await stream(box.owner);
    const [own] = await box.ctx.db.sequelize.query<{ user_id: string }>('SELECT user_id FROM email_accounts WHERE id = $1', { bind: [box.accountId], type: QueryTypes.SELECT });
    const insert = (n: number, tag: string) =>
      box.ctx.db.sequelize.query(`INSERT INTO contacts (user_id, email_account_id, email) SELECT $1, $2, '${tag}' || g || '@bulk.example' FROM generate_series(1, ${n}) g`, {
        bind: [own.user_id, box.accountId],
      });
    await insert(60, `bulk${Date.now()}-`);
    await insert(2, `few${Date.now()}-`);
    // Touching rows without changing what the app shows (last_email_at only) is no news.
    await box.ctx.db.sequelize.query("UPDATE contacts SET last_email_at = now() WHERE email_account_id = $1 AND email LIKE 'bulk%'", { bind: [box.accountId] });
    await insert(1, `last${Date.now()}-`);
    const created = () => owner.events.filter((e) => e.event === 'contact.created' && e.data.emailAccountId === box.accountId);
    await owner.waitFor(() => created().length === 3, 5000, 'three contact.created');
    expect(created().map((e) => e.data.count)).to.deep.equal([60, 2, 1]);
    expect(created()[0].data).to.not.have.property('ids');
    expect(created()[1].data.ids).to.have.length(2);
    expect(owner.events.filter((e) => e.event === 'contact.updated')).to.deep.equal([]);
  });

  it("delivers a colleague's read mark from another session", async () => {
    const owner = await stream(box.owner);
    const emailId = await firstEmailId();
    const current = await box.editor.as(request(box.app).get(`/api/emails/${emailId}`));
    const marked = await box.editor.as(request(box.app).patch(`/api/emails/${emailId}`)).send({ isRead: !current.body.data.email.isRead });
    expect(marked.status, JSON.stringify(marked.body)).to.equal(200);
    const updated = await owner.waitFor((e) => e.event === 'email.updated' && e.data.ids?.includes(emailId), undefined, 'email.updated');
    expect(updated.data).to.deep.equal({ emailAccountId: box.accountId, count: 1, ids: [emailId] });
  });

  it('replays what was missed after Last-Event-ID, and asks for a resync when it cannot', async () => {
    const contact = await createContact(await accountRow(box.accountId), { name: 'Pred' });
    const first = await stream(box.owner);
    await box.owner.as(request(box.app).patch(`/api/contacts/${contact.id}`)).send({ notes: 'one' });
    const seen = await first.waitFor((e) => e.event === 'contact.updated' && e.data.ids?.includes(contact.id));
    first.close();
    // Missed while disconnected:
    await box.owner.as(request(box.app).patch(`/api/contacts/${contact.id}`)).send({ notes: 'two' });
    await box.owner.as(request(box.app).delete(`/api/contacts/${contact.id}`));

    const resumed = await stream(box.owner, { 'Last-Event-ID': seen.id! });
    const deleted = await resumed.waitFor((e) => e.event === 'contact.deleted' && e.data.ids?.includes(contact.id));
    const updates = resumed.events.filter((e) => e.event === 'contact.updated' && e.data.ids?.includes(contact.id));
    expect(updates.map((e) => Number(e.id))).to.have.length(1);
    expect(Number(updates[0].id)).to.be.greaterThan(Number(seen.id)).and.lessThan(Number(deleted.id));
    expect(resumed.events.some((e) => e.event === 'resync')).to.equal(false);

    for (const bogus of ['not-a-number', '999999999999999']) {
      const client = await stream(box.owner, { 'Last-Event-ID': bogus });
      const resync = await client.waitFor((e) => e.event === 'resync');
      expect(resync.data).to.deep.equal({ reason: 'unknown_event_id' });
      expect(resync.id).to.equal(undefined);
    }
  });

  it('an unshare narrows the member stream: membership.changed, then nothing more of that account', async () => {
    const member = await crmUser();
    expect((await share(box, member, { role: 'editor' })).status).to.equal(201);
    const memberStream = await stream(member);
    const ownerStream = await stream(box.owner);
    const removed = await box.owner.as(request(box.app).delete(`/api/email-accounts/${box.accountId}/share/${member.fixture.user.id}`));
    expect(removed.status).to.equal(200);
    // The removal (the share's own "added" may still arrive first on a loaded machine: the stream opened as it was sent).
    const change = await memberStream.waitFor((e) => ofAccount('membership.changed', box.accountId)(e) && e.data.change === 'removed', undefined, 'membership.changed (removed)');
    expect(change.data).to.deep.include({ userId: member.fixture.user.id, change: 'removed', role: null, canRead: false });

    // A change in the account after the unshare: the owner sees it, the former member does not.
    const emailId = await firstEmailId();
    const current = await box.owner.as(request(box.app).get(`/api/emails/${emailId}`));
    await box.owner.as(request(box.app).patch(`/api/emails/${emailId}`)).send({ isRead: !current.body.data.email.isRead });
    await ownerStream.waitFor((e) => e.event === 'email.updated' && e.data.ids?.includes(emailId));
    const mine = await marker(member);
    await memberStream.waitFor(ofAccount('contact.created', mine));
    const afterRemoval = memberStream.events.slice(memberStream.events.indexOf(change) + 1);
    expect(afterRemoval.filter((e) => e.data.emailAccountId === box.accountId).map((e) => e.event)).to.deep.equal([]);
  });

  it('a viewer without canRead gets the account contacts but no email events', async () => {
    const member = await crmUser();
    expect((await share(box, member, { role: 'viewer', canRead: false })).status).to.equal(201);
    const memberStream = await stream(member);
    const emailId = await firstEmailId();
    const current = await box.owner.as(request(box.app).get(`/api/emails/${emailId}`));
    await box.owner.as(request(box.app).patch(`/api/emails/${emailId}`)).send({ isRead: !current.body.data.email.isRead });
    const created = await box.owner.as(request(box.app).post('/api/contacts')).send({ emailAccountId: box.accountId, email: `viewer${Date.now()}@example.com` });
    expect(created.status).to.equal(201);
    await memberStream.waitFor((e) => e.event === 'contact.created' && e.data.ids?.includes(created.body.data.contact.id));
    expect(memberStream.events.filter((e) => e.event.startsWith('email.'))).to.deep.equal([]);
  });

  it('a logout ends the stream; another session of the user keeps its own', async () => {
    const member = await crmUser();
    const other = await stream(box.owner);
    const client = await stream(member);
    const logout = await member.as(request(box.app).post('/api/auth/logout'));
    expect(logout.status).to.equal(200);
    await client.waitClosed();
    expect(other.closed).to.equal(false);
  });

  it('a revocation of every session (admin reset, disable) ends all the user streams', async () => {
    const member = await crmUser();
    const clients = [await stream(member), await stream(member)];
    await box.ctx.services.sessions.revokeAllForUser(member.fixture.user.id, 'admin_reset');
    for (const client of clients) await client.waitClosed();
  });

  it('an admin disabling the user over HTTP ends every stream of theirs', async () => {
    const member = await crmUser();
    const admin = await createUser({ role: 'admin' });
    const adminSession = await sessionFor(admin);
    const clients = [await stream(member), await stream(member)];
    const others = await stream(box.owner);
    const res = await request(box.app).post(`/api/admin/users/${member.fixture.user.id}/disable`).set('Authorization', adminSession.bearer);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    for (const client of clients) await client.waitClosed();
    expect(others.closed).to.equal(false);
  });

  it("a password change over HTTP ends the user's other streams and keeps the one of the session that changed it", async () => {
    const member = await crmUser();
    const elsewhere = await sessionFor(member.fixture);
    const here = await stream(member);
    const there = await SseClient.open(`${base}/api/events`, { Authorization: elsewhere.bearer });
    open.push(there);
    const res = await member.as(request(box.app).post('/api/auth/set-password')).send({ currentPassword: member.fixture.password, newPassword: 'Iné-dlhé-heslo-2026' });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    await there.waitClosed();
    expect(here.closed).to.equal(false);
  });

  it('refuses more streams per user than EVENTS_MAX_STREAMS_PER_USER with 429 in the envelope', async () => {
    const app = await testApp({ EVENTS_MAX_STREAMS_PER_USER: '2' });
    const limited = http.createServer(app);
    await new Promise<void>((resolve) => limited.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(limited.address() as AddressInfo).port}/api/events`;
    try {
      const member = await crmUser();
      const auth = { Authorization: member.session.bearer };
      const clients = [await SseClient.open(url, auth), await SseClient.open(url, auth)];
      open.push(...clients);
      expect(clients.map((c) => c.status)).to.deep.equal([200, 200]);
      const third = await SseClient.open(url, auth);
      expect(third.status).to.equal(429);
      expect(((await third.body()) as { error: { code: string } }).error.code).to.equal('rate_limited');
      // One closed: room for another.
      clients[0].close();
      await until(async () => (await testContext({ EVENTS_MAX_STREAMS_PER_USER: '2' })).services.events.openStreams < 2);
      const again = await SseClient.open(url, auth);
      open.push(again);
      expect(again.status).to.equal(200);
    } finally {
      limited.closeAllConnections();
      await new Promise((resolve) => limited.close(resolve));
    }
  });
});

async function accountRow(id: string): Promise<EmailAccount> {
  return (await EmailAccount.findOne({ where: { id } }))!;
}

async function until(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('gave up waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
