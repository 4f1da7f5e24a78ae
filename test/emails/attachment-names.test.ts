import { parse as parseDisposition } from 'content-disposition';
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { appendMessage, testJmapSessionUrl } from '../support/imap.js';
import { startCountingProxy, type CountingProxy } from '../support/counting-proxy.js';
import { testApp, testContext } from '../support/harness.js';
import { crmUser, freshMailUser, linkViaApi, type CrmUser } from '../sync/helpers.js';
import { binaryParser } from '../timesheets/helpers.js';
import { messageWithAttachment } from '../privacy/helpers.js';

/**
 * Issue 35, item 5: the attachment's name is the sender's to choose. It went percent-encoded into the
 * mail server's download URL, and Cyrus answers 400 to an encoded "/" there: an outside sender could
 * make an attachment impossible to download in the CRM. The mail server now gets a safe name; the
 * (cleaned) original is only ever the Content-Disposition's.
 */
describe('attachments whose names the mail server would refuse in a URL', function () {
  this.timeout(90_000);
  let app: Express;
  let ctx: AppContext;
  let owner: CrmUser;
  let account: string;

  let proxy: CountingProxy;
  const ENV = () => ({ JMAP_SESSION_URL: proxy.sessionUrl });

  before(async () => {
    // Through a proxy that records each request, to see the download URL the mail server gets.
    proxy = await startCountingProxy(testJmapSessionUrl());
    app = await testApp(ENV());
    ctx = await testContext(ENV());
    const mail = await freshMailUser('attachment-names');
    const names = ['a/b.pdf', 'x%2Fy?.pdf', 'Výkaz #1 & spol.pdf', '../c.pdf', 'a/../..'];
    for (const [i, file] of names.entries()) {
      const date = new Date(Date.UTC(2025, 5, 1 + i, 9));
      const raw = messageWithAttachment({ from: 'peter@clients.example', to: mail.user, subject: `Named ${i}`, body: 'See the file.', date, file, size: 1500 + i });
      await appendMessage({ user: mail.user, pass: mail.pass, mailbox: 'INBOX', raw, internalDate: date });
    }
    owner = await crmUser();
    account = await linkViaApi(app, ctx, owner, mail);
  });
  after(async () => {
    await proxy.close();
  });

  /** Paths of the blob downloads the mail server was asked for, since `from`. */
  const downloadPaths = (from: number) =>
    proxy.requests
      .slice(from)
      .map((r) => r.path)
      .filter((p) => p.startsWith('/jmap/download/'));

  /** The name the browser saves the file under (RFC 6266: filename* wins over filename). */
  const offeredName = (res: request.Response) => parseDisposition(res.headers['content-disposition'] as string).parameters.filename;

  async function download(subject: string) {
    const list = await owner.as(request(app).get('/api/emails')).query({ emailAccountId: account, limit: 50 });
    expect(list.status).to.equal(200);
    const item = (list.body.data.items as Array<{ id: string; subject: string }>).find((e) => e.subject === subject)!;
    const detail = await owner.as(request(app).get(`/api/emails/${item.id}`));
    const [attachment] = detail.body.data.email.attachments as Array<{ id: string; name: string }>;
    const res = await owner
      .as(request(app).get(`/api/emails/${item.id}/attachments/${attachment.id}`))
      .buffer(true)
      .parse(binaryParser);
    return { attachment, res };
  }

  it('downloads an attachment named "a/b.pdf" (200, every byte): the mail server gets a safe name, the browser the cleaned one', async () => {
    const seen = proxy.requests.length;
    const { attachment, res } = await download('Named 0');
    const [path] = downloadPaths(seen);
    expect(path.split('?')[0].split('/').pop()).to.equal('attachment.pdf');
    expect(attachment.name).to.equal('a/b.pdf');
    expect(res.status, String(res.body)).to.equal(200);
    expect((res.body as Buffer).length).to.equal(1500);
    expect(offeredName(res)).to.equal('b.pdf');
  });

  it('downloads names with "..", "%2F", "?", "#" and "&" (Cyrus answers 400 to a ".." segment), each under its cleaned name', async () => {
    const expected: Array<[string, number, string]> = [
      ['Named 1', 1501, 'x%2Fy?.pdf'],
      ['Named 2', 1502, 'Výkaz #1 & spol.pdf'],
      ['Named 3', 1503, 'c.pdf'],
      ['Named 4', 1504, 'priloha'],
    ];
    for (const [subject, size, name] of expected) {
      const { res } = await download(subject);
      expect(res.status, `${subject}: ${String(res.body)}`).to.equal(200);
      expect((res.body as Buffer).length, subject).to.equal(size);
      expect(offeredName(res), subject).to.equal(name);
    }
  });
});
