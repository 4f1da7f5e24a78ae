import { expect } from 'chai';
import type { Express } from 'express';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import {
  auditRecords,
  countInRole,
  freshMailUser,
  jmapAs,
  mailboxRoleIds,
  put,
  rowsWithMessageId,
  sendingWorld,
  emailsAfterMarker,
  markerViaCrm,
  uniqueSubject,
  waitForServerEmails,
  type CrmUser,
  type MailUser,
} from './helpers.js';

describe('sending: reply from the CRM through real Cyrus, SMTP relay and LMTP', function () {
  this.timeout(60_000);
  let app: Express;
  let ctx: AppContext;
  let alice: MailUser;
  let bob: MailUser;
  let owner: CrmUser;
  let accountId: string;

  before(async () => {
    ({ app, ctx, alice, bob, owner, accountId } = await sendingWorld());
  });

  /** Bob writes to alice (delivered into her INBOX), the CRM syncs; answers the CRM email. */
  async function mailFromBob(subject: string, extra: { cc?: string; inReplyTo?: string } = {}) {
    const messageId = `orig-${randomBytes(6).toString('hex')}@bob.test`;
    await put(alice, 'INBOX', {
      from: { name: 'Bob Klient', email: bob.user },
      to: alice.user,
      cc: extra.cc,
      subject,
      body: 'Dobrý deň, máte čas?',
      messageId,
      inReplyTo: extra.inReplyTo,
      date: new Date(Date.now() - 60_000),
    });
    expect((await ctx.services.mailSync.syncAccount(accountId)).outcome).to.equal('ok');
    const list = await owner.as(
      request(app)
        .get('/api/emails')
        .query({ emailAccountId: accountId, search: subject.split(' ').pop() }),
    );
    const email = (list.body.data.items as Array<{ id: string; subject: string }>).find((e) => e.subject === subject);
    expect(email, JSON.stringify(list.body)).to.exist;
    return { id: email!.id, messageId };
  }

  it("reaches bob with threading headers, sits in alice's Sent and in the CRM thread once; a retried Idempotency-Key does not send again", async () => {
    const subject = uniqueSubject('Ponuka');
    const original = await mailFromBob(subject, { inReplyTo: 'root-1@bob.test' });
    const key = `reply-${randomBytes(6).toString('hex')}`;
    const send = () =>
      owner
        .as(request(app).post(`/api/emails/${original.id}/reply`))
        .set('Idempotency-Key', key)
        .send({ text: 'Áno, v utorok o 10:00. Ďakujem!' });

    const first = await send();
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    const sent = first.body.data;
    expect(sent.sent).to.include({ emailAccountId: accountId, recipients: 1 });
    expect(sent.email.subject).to.equal(`Re: ${subject}`);
    expect(sent.email.inReplyTo).to.equal(original.messageId);
    expect(sent.email.messageId).to.equal(sent.sent.messageId);
    expect(sent.email.isRead).to.equal(true);
    // Read back from the mail server with its body (Email/get with the body values), not only its headers.
    expect(sent.email.body?.trim()).to.equal('Áno, v utorok o 10:00. Ďakujem!');

    // Bob's real mailbox got it, with the headers that thread it.
    const [atBob, ...more] = await waitForServerEmails(bob, `Re: ${subject}`);
    expect(more).to.have.length(0);
    expect(atBob.messageId).to.deep.equal([sent.sent.messageId]);
    expect(atBob.inReplyTo).to.deep.equal([original.messageId]);
    expect(atBob.references).to.deep.equal(['root-1@bob.test', original.messageId]);
    expect(atBob.from).to.deep.equal([{ name: null, email: alice.user }]);
    const text = Object.values(atBob.bodyValues ?? {})[0]?.value ?? '';
    expect(text.trim()).to.equal('Áno, v utorok o 10:00. Ďakujem!');

    // Alice's Sent holds it; Drafts holds nothing.
    const [inSent] = await waitForServerEmails(alice, `Re: ${subject}`);
    const roles = await mailboxRoleIds(jmapAs(alice));
    expect(Object.keys(inSent.mailboxIds ?? {})).to.deep.equal([roles.sent]);
    expect(inSent.keywords ?? {}).to.not.have.property('$draft');
    expect(await countInRole(alice, 'drafts')).to.equal(0);

    // In the CRM thread at once, in the same thread as the original.
    const thread = await owner.as(request(app).get(`/api/emails/${original.id}/thread`));
    expect(thread.status).to.equal(200);
    const subjects = (thread.body.data.items as Array<{ id: string; subject: string }>).map((e) => e.subject);
    expect(subjects).to.deep.equal([subject, `Re: ${subject}`]);
    expect(thread.body.data.items[1].id).to.equal(sent.email.id);

    // The retry answers the first result and sends nothing.
    const retry = await send();
    expect(retry.status).to.equal(201);
    expect(retry.headers['idempotent-replayed']).to.equal('true');
    expect(retry.body).to.deep.equal(first.body);
    expect(await emailsAfterMarker(bob, `Re: ${subject}`, markerViaCrm(app, owner, accountId, bob.user))).to.have.length(1);

    // The next sync finds the sent email and does not double it.
    expect((await ctx.services.mailSync.syncAccount(accountId)).outcome).to.equal('ok');
    expect(await rowsWithMessageId(ctx, accountId, sent.sent.messageId)).to.equal(1);
    const again = await owner.as(request(app).get(`/api/emails/${original.id}/thread`));
    expect(again.body.data.items.map((e: { id: string }) => e.id)).to.deep.equal(thread.body.data.items.map((e: { id: string }) => e.id));

    // Audited once, without the body or the addresses.
    const audits = (await auditRecords(ctx, owner.fixture.user.id, 'email.send')).filter((a) => a.details.messageId === sent.sent.messageId);
    expect(audits).to.have.length(1);
    expect(audits[0].details).to.include({ emailAccountId: accountId, recipients: 1, emailId: sent.email.id });
    expect(JSON.stringify(audits[0].details)).to.not.include('utorok').and.not.include(bob.user);
  });

  it('reply-all copies the other recipients; the subject keeps one "Re:"', async () => {
    const carol = await freshMailUser('carol');
    const subject = `Re: RE: ${uniqueSubject('Zmluva')}`;
    const original = await mailFromBob(subject, { cc: carol.user });
    const res = await owner.as(request(app).post(`/api/emails/${original.id}/reply`)).send({ text: 'Posielam všetkým.', replyAll: true });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const expected = `Re: ${subject.replace(/^Re: RE: /, '')}`;
    expect(res.body.data.email.subject).to.equal(expected);
    expect(res.body.data.sent.recipients).to.equal(2);
    const [atCarol] = await waitForServerEmails(carol, expected);
    expect(atCarol?.cc).to.deep.equal([{ name: null, email: carol.user }]);
    expect(atCarol?.to).to.deep.equal([{ name: 'Bob Klient', email: bob.user }]);
  });

  it('Bcc recipients receive the message without a Bcc header anyone could read', async () => {
    const dave = await freshMailUser('dave');
    const subject = uniqueSubject('Skrytá kópia');
    const res = await owner.as(request(app).post('/api/emails')).send({ emailAccountId: accountId, to: [bob.user], bcc: dave.user, subject, text: 'Ahoj' });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.data.sent.recipients).to.equal(2);
    const [atDave] = await waitForServerEmails(dave, subject);
    const [atBob] = await waitForServerEmails(bob, subject);
    expect(atDave, 'delivered to the Bcc recipient').to.exist;
    expect(atBob.bcc ?? null).to.equal(null);
    expect(atDave.bcc ?? null).to.equal(null);
  });

  it('a new message to a contact is filed under that contact at once', async () => {
    const subject = uniqueSubject('Nová správa');
    const found = await owner.as(request(app).get('/api/contacts')).query({ emailAccountId: accountId, search: bob.user.split('@')[0] });
    let list = (found.body.data.items as Array<{ id: string }>)[0]?.id;
    if (!list) {
      const created = await owner.as(request(app).post('/api/contacts')).send({ emailAccountId: accountId, email: bob.user, name: 'Bob Klient' });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      list = (created.body.data.contact ?? created.body.data).id as string;
    }
    const html = '<p>Dobrý <b>deň</b></p>';
    const res = await owner.as(request(app).post('/api/emails')).send({ contactId: list, subject, text: 'Dobrý deň', html });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.data.email.contactId).to.equal(list);
    expect(res.body.data.email.body).to.equal('Dobrý deň');
    const emails = await owner.as(request(app).get('/api/emails')).query({ contactId: list });
    expect(emails.body.data.items.map((e: { subject: string }) => e.subject)).to.include(subject);
    const [atBob] = await waitForServerEmails(bob, subject);
    expect(atBob.to).to.deep.equal([{ name: 'Bob Klient', email: bob.user }]);
    const htmlPart = atBob.htmlBody?.[0];
    expect(htmlPart?.type).to.equal('text/html');
    expect(atBob.bodyValues?.[htmlPart!.partId!]?.value).to.equal(html);
  });
});
