import { expect } from 'chai';
import type { Express } from 'express';
import net from 'node:net';
import request from 'supertest';
import { JmapClient, getEmails, queryEmailIds } from '../../src/jmap/index.js';
import { createLogger } from '../../src/logging/logger.js';
import { Sql } from '../../src/db/sql.js';
import { EmailAccountAccess } from '../../src/email-accounts/account-access.js';
import { EmailAccountMemberRepository } from '../../src/email-accounts/member-repository.js';
import { EmailRepository } from '../../src/emails/email-repository.js';
import { EmailService } from '../../src/emails/email-service.js';
import { ReadStatePusher } from '../../src/emails/read-state-pusher.js';
import type { Contact, EmailAccount } from '../../src/models/index.js';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createUser, type UserFixture } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { appendMessage, buildMessage, createTestMailUser, testJmapSessionUrl } from '../support/imap.js';
import { createContact, createEmail, createEmailAccount, readFlags } from '../support/email-factories.js';

interface Mailbox {
  user: string;
  pass: string;
  client: JmapClient;
  accountId: string;
}

/** A fresh mail user on the test Cyrus with `count` unread messages from `from`; answers their JMAP ids, oldest first. */
async function mailboxWith(count: number, from: string): Promise<Mailbox & { ids: string[] }> {
  const { user, pass } = await createTestMailUser('crm-read');
  for (let i = 0; i < count; i++) {
    const raw = buildMessage({ from, to: user, subject: `Správa ${i}`, body: `Text ${i}`, date: new Date(Date.UTC(2026, 0, 1 + i)) });
    await appendMessage({ user, pass, mailbox: 'INBOX', raw, internalDate: new Date(Date.UTC(2026, 0, 1 + i)) });
  }
  const client = new JmapClient({ sessionUrl: testJmapSessionUrl(), credentials: { kind: 'basic', username: user, password: pass } });
  const accountId = await client.mailAccountId();
  const { ids } = await queryEmailIds(client, accountId, { sort: [{ property: 'receivedAt', isAscending: true }] });
  expect(ids).to.have.length(count);
  return { user, pass, client, accountId, ids };
}

async function seenOnServer(box: Mailbox, ids: string[]): Promise<boolean[]> {
  const { list } = await getEmails(box.client, box.accountId, ids, ['id', 'keywords']);
  const byId = new Map(list.map((e) => [e.id, e.keywords ?? {}]));
  return ids.map((id) => byId.get(id)?.$seen === true);
}

async function closedPortUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/.well-known/jmap`;
}

describe('read state written back to the mail server ($seen)', function () {
  this.timeout(120_000);
  let app: Express;
  let owner: UserFixture;
  let session: TestSession;

  before(async () => {
    app = await testApp();
    owner = await createUser();
    session = await sessionFor(owner);
  });

  /** The CRM side of a real mailbox: an account signed in as the mail user, one contact, one row per message. */
  async function crmMirror(box: Mailbox & { ids: string[] }, options: { password?: string } = {}) {
    const account = await createEmailAccount(owner, { email: box.user, password: options.password ?? box.pass, jmapAccountId: box.accountId });
    const contact = await createContact(account, { email: 'klient@partner.test' });
    const emails = [];
    for (const [i, jmapId] of box.ids.entries()) emails.push(await createEmail(account, contact, { jmapId, isRead: false, date: new Date(Date.UTC(2026, 0, 1 + i)) }));
    return { account, contact, emails };
  }

  const markAll = (target: Express, contact: Contact) => request(target).post(`/api/emails/contact/${contact.id}/read`).set('Authorization', session.bearer);

  it('POST /api/emails/contact/:id/read marks every email read locally and as $seen on the server', async () => {
    const box = await mailboxWith(3, 'klient@partner.test');
    const { contact, emails } = await crmMirror(box);
    expect(await seenOnServer(box, box.ids)).to.deep.equal([false, false, false]);

    const res = await markAll(app, contact);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.message).to.equal('Emaily kontaktu boli označené ako prečítané');
    expect(res.body.data).to.deep.equal({ updated: 3, pushed: 3, pending: 0 });
    expect(await seenOnServer(box, box.ids)).to.deep.equal([true, true, true]);
    for (const email of emails) expect(await readFlags(email.id)).to.deep.equal({ is_read: true, read_pending: false });

    // Nothing left to change: a second call is a no-op.
    expect((await markAll(app, contact)).body.data).to.deep.equal({ updated: 0, pushed: 0, pending: 0 });
    const detail = await request(app).get(`/api/contacts/${contact.id}`).set('Authorization', session.bearer);
    expect(detail.body.data.contact.unreadCount).to.equal(0);
  });

  it('PATCH /api/emails/:id writes $seen both ways', async () => {
    const box = await mailboxWith(2, 'klient@partner.test');
    const { emails } = await crmMirror(box);
    const patch = (id: string, isRead: boolean) => request(app).patch(`/api/emails/${id}`).set('Authorization', session.bearer).send({ isRead });

    const read = await patch(emails[0].id, true);
    expect(read.status).to.equal(200);
    expect(read.body.data.email).to.include({ isRead: true, readPending: false });
    expect(await seenOnServer(box, box.ids)).to.deep.equal([true, false]);

    const unread = await patch(emails[0].id, false);
    expect(unread.body.data.email).to.include({ isRead: false, readPending: false });
    expect(unread.body.message).to.equal('Email bol označený ako neprečítaný');
    expect(await seenOnServer(box, box.ids)).to.deep.equal([false, false]);
  });

  it('with the mail server unreachable the request still succeeds, stays pending, and a later push delivers it', async () => {
    const box = await mailboxWith(2, 'klient@partner.test');
    const { account, contact, emails } = await crmMirror(box);
    const offline = await testApp({ JMAP_SESSION_URL: await closedPortUrl() });

    const res = await markAll(offline, contact);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data).to.deep.equal({ updated: 2, pushed: 0, pending: 2 });
    for (const email of emails) expect(await readFlags(email.id)).to.deep.equal({ is_read: true, read_pending: true });
    expect(await seenOnServer(box, box.ids)).to.deep.equal([false, false]);

    const patched = await request(offline).patch(`/api/emails/${emails[0].id}`).set('Authorization', session.bearer).send({ isRead: true });
    expect(patched.status).to.equal(200);
    expect(patched.body.data.email).to.include({ isRead: true, readPending: true });

    // What the sync does at the start of its next run, with the server back.
    const ctx = await testContext();
    expect(await ctx.services.readStatePusher.push(account)).to.deep.equal({ pushed: 2, failed: 0 });
    expect(await seenOnServer(box, box.ids)).to.deep.equal([true, true]);
    for (const email of emails) expect(await readFlags(email.id)).to.deep.equal({ is_read: true, read_pending: false });
  });

  it('with a wrong mail password the request still succeeds and the change stays pending', async () => {
    const box = await mailboxWith(1, 'klient@partner.test');
    const { account, contact, emails } = await crmMirror(box, { password: 'not-the-password' });
    const res = await markAll(app, contact);
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.equal({ updated: 1, pushed: 0, pending: 1 });
    expect(await readFlags(emails[0].id)).to.deep.equal({ is_read: true, read_pending: true });
    const ctx = await testContext();
    expect(await ctx.services.readStatePusher.push(account)).to.deep.equal({ pushed: 0, failed: 1 });
    expect(await seenOnServer(box, box.ids)).to.deep.equal([false]);
  });

  it('a hanging mail server does not hold the request: it answers with the change pending while the push still waits', async () => {
    const sockets = new Set<net.Socket>();
    const hanging = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = hanging.address() as net.AddressInfo;
      const ctx = await testContext({ JMAP_SESSION_URL: `http://127.0.0.1:${port}/.well-known/jmap`, JMAP_TIMEOUT_MS: '60000' });
      const account = await createEmailAccount(owner);
      const contact = await createContact(account);
      const email = await createEmail(account, contact, { isRead: false });
      const emails = new EmailService({
        emails: new EmailRepository(new Sql(ctx.db.sequelize)),
        accounts: new EmailAccountAccess(new EmailAccountMemberRepository(new Sql(ctx.db.sequelize))),
        pusher: ctx.services.readStatePusher,
        logger: createLogger('error', { silent: true }),
        pushWaitMs: 50,
      });

      expect(await emails.markContactRead(owner.user.id, contact.id)).to.deep.equal({ updated: 1, pushed: 0, pending: 1 });
      // The push is still connected to the silent server: the answer did not wait for it.
      expect([...sockets].some((s) => !s.destroyed)).to.equal(true);
      expect(await readFlags(email.id)).to.deep.equal({ is_read: true, read_pending: true });
    } finally {
      for (const s of sockets) s.destroy();
      hanging.close();
    }
  });

  describe('ReadStatePusher', () => {
    it('keeps a row pending when its is_read changed while the push was under way', async () => {
      const box = await mailboxWith(2, 'klient@partner.test');
      const { account, emails } = await crmMirror(box);
      const ctx = await testContext();
      const sequelize = ctx.db.sequelize;
      await sequelize.query('UPDATE emails SET is_read = true, read_pending = true WHERE id = ANY($ids::uuid[])', { bind: { ids: emails.map((e) => e.id) } });
      const changing = emails[0].id;
      // The user clicks "unread" after the push read the rows and before the server answered.
      const fetchImpl: typeof fetch = async (url, init) => {
        const response = await fetch(url, init);
        if (typeof init?.body === 'string' && init.body.includes('Email/set')) {
          await sequelize.query('UPDATE emails SET is_read = false, read_pending = true WHERE id = $id', { bind: { id: changing } });
        }
        return response;
      };
      const clientFor = (a: EmailAccount) => new JmapClient({ sessionUrl: testJmapSessionUrl(), credentials: { kind: 'basic', username: a.email, password: box.pass }, fetchImpl });
      const pusher = new ReadStatePusher(new EmailRepository(new Sql(sequelize)), { clientFor }, createLogger('error', { silent: true }));

      expect(await pusher.push(account)).to.deep.equal({ pushed: 2, failed: 0 });
      expect(await readFlags(changing)).to.deep.equal({ is_read: false, read_pending: true });
      expect(await readFlags(emails[1].id)).to.deep.equal({ is_read: true, read_pending: false });

      // The next push delivers the newer value.
      expect(await pusher.push(account)).to.deep.equal({ pushed: 1, failed: 0 });
      expect(await readFlags(changing)).to.deep.equal({ is_read: false, read_pending: false });
      expect(await seenOnServer(box, box.ids)).to.deep.equal([false, true]);
    });

    it('drops the pending flag of an email the server no longer has, counting it as failed', async () => {
      const box = await mailboxWith(1, 'klient@partner.test');
      const { account, contact } = await crmMirror(box);
      const ghost = await createEmail(account, contact, { jmapId: 'Mnotonserver0000000000000', isRead: true, readPending: true });
      const ctx = await testContext();
      expect(await ctx.services.readStatePusher.push(account)).to.deep.equal({ pushed: 0, failed: 1 });
      expect(await readFlags(ghost.id)).to.deep.equal({ is_read: true, read_pending: false });
    });

    it('pushes in batches: more rows than one batch all arrive', async () => {
      const box = await mailboxWith(5, 'klient@partner.test');
      const { account, emails } = await crmMirror(box);
      const ctx = await testContext();
      await ctx.db.sequelize.query('UPDATE emails SET is_read = true, read_pending = true WHERE id = ANY($ids::uuid[])', { bind: { ids: emails.map((e) => e.id) } });
      const pusher = new ReadStatePusher(new EmailRepository(new Sql(ctx.db.sequelize)), ctx.services.emailAccounts, createLogger('error', { silent: true }), 2);
      expect(await pusher.push(account)).to.deep.equal({ pushed: 5, failed: 0 });
      expect(await seenOnServer(box, box.ids)).to.deep.equal([true, true, true, true, true]);
    });
  });
});
