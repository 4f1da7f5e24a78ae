/**
 * Issue 26 (Low): rights checked once, too early or too late. A new owner changed the account's
 * address without its password (the CRM then synced another mailbox with the stored password); a
 * member removed, or signed out, while their multipart send was uploading still sent from the
 * account; a member with canSend but not canRead sent and got a 403 (a retry sent twice).
 */
import { expect } from 'chai';
import type { Express } from 'express';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { sessionFor } from '../support/auth.js';
import { createUser } from '../support/factories.js';
import { addMailUser } from '../support/imap.js';
import { until } from '../support/poll.js';
import { relayDeliveries } from '../support/relay-log.js';
import { crmUser, sendingWorld, uniqueSubject, emailsAfterMarker, markerViaCrm, type CrmUser, type MailUser } from '../sending/helpers.js';

/**
 * A multipart send whose file arrives in two halves: `between` runs after the first half has gone
 * to the server (and the server has started uploading it). Answers status and body.
 */
async function sendInTwoHalves(
  app: Express,
  bearer: string,
  fields: Record<string, string>,
  between: () => Promise<void>,
): Promise<{ status: number; body: { error?: { code: string } } }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const boundary = `b-${randomBytes(6).toString('hex')}`;
    const head =
      Object.entries(fields)
        .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
        .join('') + `--${boundary}\r\nContent-Disposition: form-data; name="attachments"; filename="polovice.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
    const half = Buffer.alloc(300_000, 0x61);
    const tail = `\r\n--${boundary}--\r\n`;
    const length = Buffer.byteLength(head) + 2 * half.length + tail.length;
    const answer = new Promise<{ status: number; body: { error?: { code: string } } }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: (server.address() as AddressInfo).port,
          method: 'POST',
          path: '/api/emails',
          headers: { Authorization: bearer, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': String(length) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || '{}') as { error?: { code: string } } }));
        },
      );
      req.on('error', reject);
      req.write(head);
      req.write(half, async () => {
        await new Promise((r) => setTimeout(r, 300));
        await between();
        req.write(half);
        req.end(tail);
      });
    });
    return await answer;
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('attacks: rights re-checked where they matter (issue 26)', function () {
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

  async function share(member: CrmUser, rights: { role: string; canRead: boolean; canSend: boolean }): Promise<void> {
    const res = await owner.as(request(app).post(`/api/email-accounts/${accountId}/share`)).send({ userId: member.fixture.user.id, ...rights });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
  }

  it('changing the address needs the password of the new mailbox, even when the stored one would open it', async () => {
    // Another mailbox on the same server that the stored password happens to open.
    const other = `other-${randomBytes(5).toString('hex')}@example.test`;
    await addMailUser(other, alice.pass);
    const res = await owner.as(request(app).patch(`/api/email-accounts/${accountId}`)).send({ email: other });
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect(res.body.error.code).to.equal('validation_failed');
    expect(JSON.stringify(res.body.error.details)).to.include('emailPassword');
    const [row] = await ctx.db.sequelize.query<{ email: string }>('SELECT email FROM email_accounts WHERE id = $1', { bind: [accountId], type: 'SELECT' as never });
    expect(row.email).to.equal(alice.user);
  });

  it('a member removed while the upload runs does not send (404), nothing reaches the recipient', async () => {
    const member = await crmUser();
    await share(member, { role: 'editor', canRead: true, canSend: true });
    const subject = uniqueSubject('Odobraty');
    const answer = await sendInTwoHalves(app, member.session.bearer, { emailAccountId: accountId, to: bob.user, subject, text: 'x' }, async () => {
      const removed = await owner.as(request(app).delete(`/api/email-accounts/${accountId}/share/${member.fixture.user.id}`));
      expect(removed.status).to.equal(200);
    });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(404);
    expect(await emailsAfterMarker(bob, subject, markerViaCrm(app, owner, accountId, bob.user))).to.have.length(0);
  });

  it('a member who signs out while the upload runs does not send (401)', async () => {
    const member = await crmUser();
    await share(member, { role: 'editor', canRead: true, canSend: true });
    const subject = uniqueSubject('Odhlaseny');
    const answer = await sendInTwoHalves(app, member.session.bearer, { emailAccountId: accountId, to: bob.user, subject, text: 'x' }, async () => {
      const out = await member.as(request(app).post('/api/auth/logout'));
      expect(out.status).to.be.oneOf([200, 204]);
    });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(401);
    expect(await emailsAfterMarker(bob, subject, markerViaCrm(app, owner, accountId, bob.user))).to.have.length(0);
  });

  /** A member who may send from the account, with an API token (emails:write) of theirs. */
  async function tokenMember(expiresAt?: string): Promise<{ member: CrmUser; token: string; tokenId: string }> {
    const member = await crmUser();
    await share(member, { role: 'editor', canRead: true, canSend: true });
    const res = await member.as(request(app).post('/api/tokens')).send({ name: 'integrácia', scopes: ['emails:write'], ...(expiresAt ? { expiresAt } : {}) });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return { member, token: res.body.data.token as string, tokenId: res.body.data.apiToken.id as string };
  }

  it('an API token revoked while the upload runs does not send (401)', async () => {
    const { member, token, tokenId } = await tokenMember();
    const subject = uniqueSubject('Odvolany token');
    const answer = await sendInTwoHalves(app, `Bearer ${token}`, { emailAccountId: accountId, to: bob.user, subject, text: 'x' }, async () => {
      expect((await member.as(request(app).delete(`/api/tokens/${tokenId}`))).status).to.equal(200);
    });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(401);
    expect(await emailsAfterMarker(bob, subject, markerViaCrm(app, owner, accountId, bob.user))).to.have.length(0);
  });

  it('an API token whose user is disabled while the upload runs does not send (401)', async () => {
    const { member, token } = await tokenMember();
    const admin = await sessionFor(await createUser({ role: 'admin' }));
    const subject = uniqueSubject('Zablokovany token');
    const answer = await sendInTwoHalves(app, `Bearer ${token}`, { emailAccountId: accountId, to: bob.user, subject, text: 'x' }, async () => {
      expect((await request(app).post(`/api/admin/users/${member.fixture.user.id}/disable`).set('Authorization', admin.bearer)).status).to.equal(200);
    });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(401);
    expect(await emailsAfterMarker(bob, subject, markerViaCrm(app, owner, accountId, bob.user))).to.have.length(0);
  });

  it('an API token that expires while the upload runs does not send (401)', async () => {
    const expiresAt = new Date(Date.now() + 4_000);
    const { token } = await tokenMember(expiresAt.toISOString());
    const subject = uniqueSubject('Expirovany token');
    const answer = await sendInTwoHalves(app, `Bearer ${token}`, { emailAccountId: accountId, to: bob.user, subject, text: 'x' }, async () => {
      // The first half was taken with the token still valid; the rest comes after it expired.
      await until(() => Date.now() > expiresAt.getTime() + 200, { what: 'the token expired', timeoutMs: 10_000, intervalMs: 100 });
    });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(401);
    expect(await emailsAfterMarker(bob, subject, markerViaCrm(app, owner, accountId, bob.user))).to.have.length(0);
  });

  it('a member who may send but not read gets 201 with email null, and the message went out once', async () => {
    const member = await crmUser();
    await share(member, { role: 'editor', canRead: false, canSend: true });
    const subject = uniqueSubject('Bez citania');
    const res = await member.as(request(app).post('/api/emails')).send({ emailAccountId: accountId, to: [bob.user], subject, text: 'Posielam.' });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.data.email).to.equal(null);
    expect(res.body.data.sent).to.include({ emailAccountId: accountId, recipients: 1 });
    expect(await emailsAfterMarker(bob, subject, markerViaCrm(app, owner, accountId, bob.user))).to.have.length(1);
    // Submitted once, not only stored once: Cyrus would keep one copy of a message submitted twice.
    const submitted = relayDeliveries(subject);
    expect(submitted.length, 'SMTP transactions with this subject').to.equal(1);
    expect(submitted[0].to).to.deep.equal([bob.user]);
  });
});
