/**
 * Issue 26 (Medium): a multipart send streamed every file to the mail server before its text fields
 * were validated, and a refused send gave its rate-limit point back: 70 invalid forms with a 9 MB
 * file each grew the mail server's spool by 600 MB. Now the whole form is validated before the first
 * byte goes out, uploads spend a per-user byte budget that a failed send never gives back, and only
 * so many uploads run at once. What reaches the mail server is counted by a proxy in front of Cyrus.
 */
import { expect } from 'chai';
import type { Express } from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { startCountingProxy, type CountingProxy } from '../support/counting-proxy.js';
import { testApp, testContext } from '../support/harness.js';
import { testJmapSessionUrl } from '../support/imap.js';
import { crmUser, freshMailUser, linkViaApi, randomFile, sendingWorld, uniqueSubject, emailsAfterMarker, type CrmUser, type MailUser } from '../sending/helpers.js';

describe('attacks: multipart sends (issue 26)', function () {
  this.timeout(90_000);
  let proxy: CountingProxy;
  let app: Express;
  let bob: MailUser;
  let owner: CrmUser;
  let accountId: string;
  const ENV = () => ({ JMAP_SESSION_URL: proxy.sessionUrl, SEND_UPLOAD_BUDGET_MB: '5', SEND_UPLOADS_PER_USER: '1' });
  const uploads = () => proxy.requests.filter((r) => r.method === 'POST' && r.path.includes('/upload/')).length;

  before(async () => {
    ({ bob, owner, accountId } = await sendingWorld());
    proxy = await startCountingProxy(testJmapSessionUrl());
    app = await testApp(ENV());
  });

  after(async () => {
    await proxy?.close();
  });

  it('a form refused for its text fields sends no byte of its files to the mail server', async () => {
    const file = randomFile(2_000_000);
    const forms: Array<[string, (t: request.Test) => request.Test, number]> = [
      ['invalid address', (t) => t.field('emailAccountId', accountId).field('to', 'not-an-address').field('text', 'x'), 400],
      ['no text', (t) => t.field('emailAccountId', accountId).field('to', bob.user), 400],
      ['no recipient', (t) => t.field('emailAccountId', accountId).field('text', 'x'), 400],
      ['unknown field', (t) => t.field('emailAccountId', accountId).field('to', bob.user).field('text', 'x').field('priority', 'high'), 400],
      ['foreign account', (t) => t.field('emailAccountId', '00000000-0000-4000-8000-000000000000').field('to', bob.user).field('text', 'x'), 404],
    ];
    for (const [what, fill, status] of forms) {
      proxy.reset();
      const res = await fill(owner.as(request(app).post('/api/emails'))).attach('attachments', file, { filename: 'zmluva.bin' });
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).to.equal(status);
      expect(uploads(), what).to.equal(0);
    }
  });

  it('a text field after a file is refused; the upload budget it spent is not given back (429 beyond it)', async () => {
    const sender = await crmUser();
    const senderAccount = await linkViaApi(app, await testContext(ENV()), sender, await freshMailUser('alice'));
    const late = await sender
      .as(request(app).post('/api/emails'))
      .field('emailAccountId', senderAccount)
      .field('to', bob.user)
      .field('text', 'predmet príde neskoro')
      .attach('attachments', randomFile(3_000_000), { filename: 'a.bin' })
      .field('subject', 'neskoro');
    expect(late.status, JSON.stringify(late.body)).to.equal(400);
    expect(late.body.error.message).to.match(/pred prílohami/);

    const subject = uniqueSubject('Rozpocet');
    const over = await sender
      .as(request(app).post('/api/emails'))
      .field('emailAccountId', senderAccount)
      .field('to', bob.user)
      .field('subject', subject)
      .field('text', 'druhy pokus')
      .attach('attachments', randomFile(3_000_000), { filename: 'b.bin' });
    expect(over.status, JSON.stringify(over.body)).to.equal(429);
    expect(over.body.error.code).to.equal('rate_limited');
    expect(Number(over.headers['retry-after'])).to.be.greaterThan(0);
    expect(await emailsAfterMarker(bob, subject)).to.have.length(0);

    // The budget is for attachments: a message without files still goes out.
    const plain = await sender.as(request(app).post('/api/emails')).send({ emailAccountId: senderAccount, to: [bob.user], subject: `${subject} bez prilohy`, text: 'bez prílohy' });
    expect(plain.status, JSON.stringify(plain.body)).to.equal(201);
  });

  it('only so many uploads of one user at once: the next is a 429 with Retry-After until the first ends', async () => {
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const boundary = 'x-stalled-upload';
      const head = [
        `--${boundary}\r\nContent-Disposition: form-data; name="emailAccountId"\r\n\r\n${accountId}\r\n`,
        `--${boundary}\r\nContent-Disposition: form-data; name="to"\r\n\r\n${bob.user}\r\n`,
        `--${boundary}\r\nContent-Disposition: form-data; name="text"\r\n\r\npomaly\r\n`,
        `--${boundary}\r\nContent-Disposition: form-data; name="attachments"; filename="pomaly.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ].join('');
      const stalled = http.request({
        port,
        host: '127.0.0.1',
        method: 'POST',
        path: '/api/emails',
        headers: { Authorization: owner.session.bearer, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': String(head.length + 5_000_000) },
      });
      stalled.on('error', () => undefined);
      stalled.write(head);
      stalled.write(randomFile(100_000));

      let second: request.Response | undefined;
      for (let i = 0; i < 50; i++) {
        second = await owner
          .as(request(app).post('/api/emails'))
          .field('emailAccountId', accountId)
          .field('to', bob.user)
          .field('text', 'druhy')
          .attach('attachments', randomFile(1000), { filename: 'c.bin' });
        if (second.status === 429) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(second!.status, JSON.stringify(second!.body)).to.equal(429);
      expect(second!.body.error.code).to.equal('rate_limited');
      expect(second!.headers['retry-after']).to.match(/^\d+$/);

      // A send without files is not an upload.
      const plain = await owner.as(request(app).post('/api/emails')).send({ emailAccountId: accountId, to: [bob.user], subject: uniqueSubject('Bez'), text: 'x' });
      expect(plain.status, JSON.stringify(plain.body)).to.equal(201);

      stalled.destroy();
      let third: request.Response | undefined;
      for (let i = 0; i < 100; i++) {
        third = await owner
          .as(request(app).post('/api/emails'))
          .field('emailAccountId', accountId)
          .field('to', bob.user)
          .field('subject', uniqueSubject('Tretia'))
          .field('text', 'tretia')
          .attach('attachments', randomFile(1000), { filename: 'd.bin' });
        if (third.status !== 429) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(third!.status, JSON.stringify(third!.body)).to.equal(201);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
