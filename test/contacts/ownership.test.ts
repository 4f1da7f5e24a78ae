import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { Contact, type Email, type EmailAccount } from '../../src/models/index.js';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createUser, type UserFixture } from '../support/factories.js';
import { testApp } from '../support/harness.js';
import { createContact, createEmail, createEmailAccount, readFlags } from '../support/email-factories.js';

/** Each user's contacts and emails are sealed off: another member or an admin sees nothing of them. */
describe('contacts and emails: each user sees only their own', function () {
  let app: Express;
  let alice: UserFixture;
  let aliceAccount: EmailAccount;
  let aliceContact: Contact;
  let aliceEmail: Email;

  before(async () => {
    app = await testApp();
    alice = await createUser();
    aliceAccount = await createEmailAccount(alice);
    aliceContact = await createContact(aliceAccount, { name: 'Tajný klient', notes: 'dôverné' });
    aliceEmail = await createEmail(aliceAccount, aliceContact, { subject: 'Dôverné', isRead: false, threadId: 'T-secret' });
    const aliceSession = await sessionFor(alice);
    // Alice herself does see all of it (so the empty answers below are about ownership, not about missing data).
    const own = await request(app).get('/api/contacts').set('Authorization', aliceSession.bearer);
    expect(own.body.data.pagination.total).to.equal(1);
  });

  for (const role of ['member', 'admin'] as const) {
    describe(`as another ${role}`, () => {
      let session: TestSession;
      let other: UserFixture;

      before(async () => {
        other = await createUser({ role });
        session = await sessionFor(other);
        // Data of their own with the same thread id, to prove threads do not cross users either.
        const box = await createEmailAccount(other);
        const theirs = await createContact(box);
        await createEmail(box, theirs, { threadId: 'T-secret' });
      });

      const as = (method: 'get' | 'post' | 'patch' | 'delete', path: string) => request(app)[method](path).set('Authorization', session.bearer);

      it('lists none of the other user’s contacts or emails', async () => {
        const contacts = await as('get', '/api/contacts?search=tajn');
        expect(contacts.status).to.equal(200);
        expect(contacts.body.data).to.deep.equal({ items: [], pagination: { page: 1, limit: 50, total: 0, totalExact: true, hasNext: false } });
        const emails = await as('get', '/api/emails?search=dôverné');
        expect(emails.body.data).to.deep.equal({ items: [], pagination: { page: 1, limit: 50, total: 0, totalExact: true, hasNext: false } });
        const all = await as('get', '/api/emails');
        expect(all.body.data.items.map((e: { id: string }) => e.id)).to.not.include(aliceEmail.id);
      });

      it('gets 404 for the other user’s ids on every route, and changes nothing', async () => {
        const attempts: Array<[string, request.Test]> = [
          ['GET contact', as('get', `/api/contacts/${aliceContact.id}`)],
          ['PATCH contact', as('patch', `/api/contacts/${aliceContact.id}`).send({ name: 'hacked' })],
          ['DELETE contact', as('delete', `/api/contacts/${aliceContact.id}`)],
          ['POST contact into their account', as('post', '/api/contacts').send({ emailAccountId: aliceAccount.id, email: 'x@example.com' })],
          ['GET emails by their contact', as('get', `/api/emails?contactId=${aliceContact.id}`)],
          ['GET emails by their account', as('get', `/api/emails?emailAccountId=${aliceAccount.id}`)],
          ['GET contacts by their account', as('get', `/api/contacts?emailAccountId=${aliceAccount.id}`)],
          ['GET email', as('get', `/api/emails/${aliceEmail.id}`)],
          ['GET thread', as('get', `/api/emails/${aliceEmail.id}/thread`)],
          ['PATCH email', as('patch', `/api/emails/${aliceEmail.id}`).send({ isRead: true })],
          ['mark contact read', as('post', `/api/emails/contact/${aliceContact.id}/read`)],
        ];
        for (const [what, pending] of attempts) {
          const res = await pending;
          expect(res.status, `${what}: ${JSON.stringify(res.body)}`).to.equal(404);
          expect(res.body.success, what).to.equal(false);
          expect(JSON.stringify(res.body), what).to.not.contain('Tajný');
        }
        const contact = await Contact.findByPk(aliceContact.id);
        expect(contact).to.include({ name: 'Tajný klient', notes: 'dôverné' });
        expect(await readFlags(aliceEmail.id)).to.deep.equal({ is_read: false, read_pending: false });
        expect(await Contact.count({ where: { emailAccountId: aliceAccount.id } })).to.equal(1);
      });
    });
  }

  it('without a session every route answers 401', async () => {
    for (const res of await Promise.all([
      request(app).get('/api/contacts'),
      request(app).get(`/api/contacts/${aliceContact.id}`),
      request(app).get('/api/emails'),
      request(app).get(`/api/emails/${aliceEmail.id}`),
      request(app).patch(`/api/emails/${aliceEmail.id}`).send({ isRead: true }),
      request(app).post(`/api/emails/contact/${aliceContact.id}/read`),
    ])) {
      expect(res.status).to.equal(401);
    }
  });
});
