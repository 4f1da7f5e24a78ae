/**
 * Issue 26 (Medium): one member holding 55 attachment downloads open without reading tied up all of
 * the mail server's HTTP workers for minutes. Now downloads are bounded per user and in all (429 +
 * Retry-After beyond), a transfer that moves no byte for ATTACHMENT_IDLE_TIMEOUT_MS is ended, and the
 * mail server's transfer ends when the client leaves. Clients here open downloads and do not read.
 */
import { expect } from 'chai';
import type { Express } from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { testApp } from '../support/harness.js';
import { binaryParser } from '../timesheets/helpers.js';
import { randomFile, sendFromMailUser, sendingWorld, uniqueSubject, waitForServerEmails, type CrmUser, type MailUser } from '../sending/helpers.js';

interface Listening {
  port: number;
  close(): Promise<void>;
}

async function listen(app: Express): Promise<Listening> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A download whose answer arrived (status and headers) and whose body is not read until resumed. */
interface Stalled {
  status: number;
  /** Reads the rest of the body; answers the bytes received before the connection ended. */
  resume(): Promise<number>;
  destroy(): void;
}

function openWithoutReading(port: number, path: string, bearer: string): Promise<Stalled> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers: { Authorization: bearer }, agent: false }, (res) => {
      res.pause();
      const resume = () =>
        new Promise<number>((done) => {
          let received = 0;
          res.on('data', (c: Buffer) => (received += c.length));
          res.on('error', () => undefined);
          res.on('close', () => done(received));
          res.resume();
        });
      resolve({ status: res.statusCode ?? 0, resume, destroy: () => req.destroy() });
    });
    req.on('error', (err) => reject(err));
  });
}

describe('attacks: attachment downloads held open (issue 26)', function () {
  this.timeout(120_000);
  let ctx: AppContext;
  let owner: CrmUser;
  let bytes: Buffer;
  let path: string;

  before(async () => {
    let app: Express;
    let alice: MailUser;
    let bob: MailUser;
    let accountId: string;
    ({ app, ctx, alice, bob, owner, accountId } = await sendingWorld());
    // Larger than what socket buffers on both hops swallow, so a reader that stops really stalls it.
    bytes = randomFile(12_000_000);
    const subject = uniqueSubject('Velky subor');
    await sendFromMailUser(bob, alice.user, subject, { name: 'velky.bin', type: 'application/octet-stream', bytes });
    await waitForServerEmails(alice, subject, 1, 30_000);
    expect((await ctx.services.mailSync.syncAccount(accountId)).outcome).to.equal('ok');
    const list = await owner.as(request(app).get('/api/emails')).query({ emailAccountId: accountId, search: subject.split(' ').pop() });
    const item = (list.body.data.items as Array<{ id: string; subject: string }>).find((e) => e.subject === subject)!;
    const detail = await owner.as(request(app).get(`/api/emails/${item.id}`));
    path = `/api/emails/${item.id}/attachments/${detail.body.data.email.attachments[0].id}`;
  });

  it('beyond the per-user bound a 429 with Retry-After; stalled readers are cut off after the idle timeout, freeing their places', async () => {
    const app = await testApp({ ATTACHMENT_DOWNLOADS_PER_USER: '2', ATTACHMENT_DOWNLOADS_TOTAL: '10', ATTACHMENT_IDLE_TIMEOUT_MS: '1500' });
    const server = await listen(app);
    try {
      const held = [await openWithoutReading(server.port, path, owner.session.bearer), await openWithoutReading(server.port, path, owner.session.bearer)];
      expect(held.map((h) => h.status)).to.deep.equal([200, 200]);

      const third = await owner.as(request(app).get(path));
      expect(third.status, JSON.stringify(third.body)).to.equal(429);
      expect(third.body.error.code).to.equal('rate_limited');
      expect(third.headers['retry-after']).to.match(/^\d+$/);

      // Nobody reads for a while (several idle timeouts): the server ends both transfers, the mail
      // server's with them; a reader that comes back gets only what was already under way.
      await new Promise((r) => setTimeout(r, 6_000));
      for (const h of held) expect(await h.resume()).to.be.lessThan(bytes.length);

      const full = await owner.as(request(app).get(path)).buffer(true).parse(binaryParser);
      expect(full.status).to.equal(200);
      expect(Buffer.compare(full.body as Buffer, bytes)).to.equal(0);
    } finally {
      await server.close();
    }
  });

  it('a client that leaves gives its place back at once (long idle timeout)', async () => {
    const app = await testApp({ ATTACHMENT_DOWNLOADS_PER_USER: '2', ATTACHMENT_DOWNLOADS_TOTAL: '10', ATTACHMENT_IDLE_TIMEOUT_MS: '600000' });
    const server = await listen(app);
    try {
      const held = [await openWithoutReading(server.port, path, owner.session.bearer), await openWithoutReading(server.port, path, owner.session.bearer)];
      expect((await owner.as(request(app).get(path))).status).to.equal(429);
      for (const h of held) h.destroy();
      let status = 0;
      for (let i = 0; i < 100 && status !== 200; i++) {
        const res = await owner.as(request(app).get(path)).buffer(true).parse(binaryParser);
        status = res.status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).to.equal(200);
    } finally {
      await server.close();
    }
  });
});
