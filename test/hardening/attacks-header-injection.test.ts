/**
 * Issue 26 (High): a display name carrying CR/LF wrote headers into the sent message. Through the
 * request (a recipient "X\nReply-To: ..." typed by a member) and, with no staff help, through mail an
 * outsider sent: a Reply-To whose RFC 2047 name decodes to CR/LF + Content-Type: text/html, copied
 * into the reply. Checked on the message as the recipient's mailbox on Cyrus holds it.
 */
import { expect } from 'chai';
import type { Express } from 'express';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { jmapAs, put, sendingWorld, uniqueSubject, waitForServerEmails, type CrmUser, type MailUser } from '../sending/helpers.js';

interface Received {
  headers: Array<{ name: string; value: string }>;
  textBody: Array<{ type: string }>;
  htmlBody: Array<{ type: string }>;
  replyTo: unknown;
  sender: unknown;
  to: Array<{ name: string | null; email: string }>;
}

/** The received message's header fields and body structure, straight from the recipient's Cyrus mailbox. */
async function received(mail: MailUser, subject: string): Promise<Received> {
  const [found] = await waitForServerEmails(mail, subject);
  expect(found, `no "${subject}" at ${mail.user}`).to.exist;
  const client = jmapAs(mail);
  const accountId = await client.mailAccountId();
  const got = await client.callOne<{ list: Received[] }>('Email/get', {
    accountId,
    ids: [found.id],
    properties: ['headers', 'textBody', 'htmlBody', 'replyTo', 'sender', 'to'],
  });
  return got.list[0];
}

function headerNames(message: Received): string[] {
  return message.headers.map((h) => h.name.toLowerCase());
}

describe('attacks: header injection through display names (issue 26)', function () {
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

  it('refuses a recipient name with CR/LF or other control characters (400), and nothing is sent', async () => {
    for (const to of [
      `X\nReply-To: mallory@evil.test\nSender: ceo@firma.test\nX-A: <${bob.user}>`,
      `"X\r\nContent-Type: text/html" <${bob.user}>`,
      `X\u0000Y <${bob.user}>`,
      `X\u2028Y <${bob.user}>`,
    ]) {
      const subject = uniqueSubject('Injekcia');
      const res = await owner.as(request(app).post('/api/emails')).send({ emailAccountId: accountId, to: [to], subject, text: 'Ahoj' });
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(res.body.error.code).to.equal('validation_failed');
      expect(JSON.stringify(res.body.error.details)).to.match(/riadiace znaky/);
    }
  });

  it('refuses a subject with a line break (400)', async () => {
    const res = await owner.as(request(app).post('/api/emails')).send({ emailAccountId: accountId, to: [bob.user], subject: 'Ahoj\r\nBcc: mallory@evil.test', text: 'Ahoj' });
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect(JSON.stringify(res.body.error.details)).to.match(/riadiace znaky/);
  });

  it('a multipart form is refused the same way', async () => {
    const res = await owner.as(request(app).post('/api/emails')).field('emailAccountId', accountId).field('to', `X\r\nBcc: mallory@evil.test <${bob.user}>`).field('text', 'Ahoj');
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
  });

  it("a reply to an outsider's Reply-To whose encoded name decodes to CR/LF + headers writes no header at the customer", async () => {
    const subject = uniqueSubject('Faktura');
    const evilName = `Ucet\r\nContent-Type: text/html\r\nSender: ceo@firma.test\r\nX-Injected: 1\r\n\r\n<b>IBAN SK00 6666</b>`;
    const encoded = `=?UTF-8?B?${Buffer.from(evilName, 'utf8').toString('base64')}?=`;
    const messageId = `evil-${randomBytes(6).toString('hex')}@evil.test`;
    await put(alice, 'INBOX', {
      from: { name: 'Mallory', email: 'mallory@evil.test' },
      to: alice.user,
      subject,
      body: 'Prosím o odpoveď.',
      messageId,
      headers: { 'Reply-To': `${encoded} <${bob.user}>` },
      date: new Date(Date.now() - 60_000),
    });
    expect((await ctx.services.mailSync.syncAccount(accountId)).outcome).to.equal('ok');
    const list = await owner.as(
      request(app)
        .get('/api/emails')
        .query({ emailAccountId: accountId, search: subject.split(' ').pop() }),
    );
    const original = (list.body.data.items as Array<{ id: string; subject: string }>).find((e) => e.subject === subject);
    expect(original, JSON.stringify(list.body)).to.exist;

    const res = await owner.as(request(app).post(`/api/emails/${original!.id}/reply`)).send({ text: 'Dobrý deň, posielam údaje.' });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);

    const atBob = await received(bob, `Re: ${subject}`);
    const names = headerNames(atBob);
    expect(names).to.not.include('x-injected');
    expect(names).to.not.include('sender');
    expect(names).to.not.include('reply-to');
    expect(names.filter((n) => n === 'content-type')).to.have.length(1);
    expect(atBob.htmlBody.map((p) => p.type)).to.deep.equal(['text/plain']);
    expect(atBob.textBody.map((p) => p.type)).to.deep.equal(['text/plain']);
    expect(atBob.to.map((a) => a.email)).to.deep.equal([bob.user]);
    // The name survives as one harmless line.
    expect(atBob.to[0].name ?? '').to.not.match(/[\r\n]/);
  });
});
