import { expect } from 'chai';
import type { Express } from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { testApp } from '../support/harness.js';
import { appendMessage } from '../support/imap.js';
import { buildHtmlMessage, TINY_PNG } from '../support/html-mail.js';
import { sendingWorld, uniqueSubject, type CrmUser, type MailUser } from '../sending/helpers.js';
import { binaryParser } from '../timesheets/helpers.js';
import { HOSTILE_HTML } from '../fixtures/email-html.js';

describe('emails: the HTML body, inline images and downloads for a web app (real Cyrus)', function () {
  this.timeout(60_000);
  let app: Express;
  let ctx: AppContext;
  let alice: MailUser;
  let bob: MailUser;
  let owner: CrmUser;
  let accountId: string;
  let emailId: string;

  before(async () => {
    ({ app, ctx, alice, bob, owner, accountId } = await sendingWorld());
    const subject = uniqueSubject('Faktúra HTML');
    const raw = buildHtmlMessage({
      from: `=?UTF-8?B?${Buffer.from('Bob Kováč').toString('base64')}?= <${bob.user}>`,
      to: alice.user,
      subject,
      text: 'Dobrý deň, faktúra v prílohe.',
      html: HOSTILE_HTML,
      inline: { cid: 'logo@firma.sk', name: 'logo.png', type: 'image/png', bytes: TINY_PNG },
      attachment: { name: 'faktura.pdf', type: 'application/pdf', bytes: Buffer.from('%PDF-1.4\n%%EOF\n') },
    });
    await appendMessage({ user: alice.user, pass: alice.pass, mailbox: 'INBOX', raw });
    expect((await ctx.services.mailSync.syncAccount(accountId)).outcome).to.equal('ok');
    const list = await owner.as(request(app).get('/api/emails')).query({ emailAccountId: accountId });
    const item = (list.body.data.items as Array<{ id: string; subject: string }>).find((e) => e.subject === subject);
    expect(item, JSON.stringify(list.body)).to.exist;
    emailId = item!.id;
  });

  it('the list item has the sender as {name, email} and hasAttachments from the sync', async () => {
    const list = await owner.as(request(app).get('/api/emails')).query({ emailAccountId: accountId });
    const item = (list.body.data.items as Array<Record<string, unknown>>).find((e) => e.id === emailId)!;
    expect(item).to.deep.include({ from: [{ name: 'Bob Kováč', email: bob.user }], to: [{ name: null, email: alice.user }], hasAttachments: true });
    expect(item.fromText).to.equal(`Bob Kováč <${bob.user}>`);
  });

  it('the detail carries sanitised HTML: no script, handler, javascript: URL, form, frame or remote fetch', async () => {
    const res = await owner.as(request(app).get(`/api/emails/${emailId}`));
    expect(res.status).to.equal(200);
    const { html, body, blockedImages } = res.body.data.email as { html: string; body: string; blockedImages: number };
    expect(body).to.contain('faktúra v prílohe');
    expect(html).to.contain('<b>faktúra</b>');
    for (const forbidden of [/<script/i, /alert/, /onload|onclick/i, /javascript:/i, /<form|<input|<iframe|<style/i, /url\(/i, /\ssrc="https:\/\/tracker/]) {
      expect(html, String(forbidden)).not.to.match(forbidden);
    }
    expect(html).to.contain('data-crm-src="https://tracker.example/pixel.gif"');
    expect(html).to.contain('href="https://firma.sk/objednavka" target="_blank" rel="noopener noreferrer"');
    expect(blockedImages).to.equal(1);
  });

  it('rewrites the cid: image to its download URL and lists it as inline; the PDF stays a file', async () => {
    const res = await owner.as(request(app).get(`/api/emails/${emailId}`));
    const { html, attachments } = res.body.data.email as { html: string; attachments: Array<{ id: string; name: string; inline: boolean }> };
    const logo = attachments.find((a) => a.name === 'logo.png')!;
    const pdf = attachments.find((a) => a.name === 'faktura.pdf')!;
    expect(logo.inline).to.equal(true);
    expect(pdf.inline).to.equal(false);
    expect(html).to.match(new RegExp(`<img src="http://127\\.0\\.0\\.1:\\d+/api/emails/${emailId}/attachments/${logo.id}" alt="logo"`));
  });

  it('remoteImages=1 lets remote images load; a wrong value is 400', async () => {
    const res = await owner.as(request(app).get(`/api/emails/${emailId}?remoteImages=1`));
    expect(res.body.data.email.html).to.contain('src="https://tracker.example/pixel.gif"');
    expect(res.body.data.email.blockedImages).to.equal(0);
    expect((await owner.as(request(app).get(`/api/emails/${emailId}?remoteImages=yes`))).status).to.equal(400);
  });

  it('the thread carries the HTML too', async () => {
    const res = await owner.as(request(app).get(`/api/emails/${emailId}/thread`));
    expect(res.body.data.items[0].html).to.contain('<b>faktúra</b>');
  });

  it('an image downloads inline and embeddable by the same site, a PDF as an attachment; nosniff on both', async () => {
    const { attachments } = (await owner.as(request(app).get(`/api/emails/${emailId}`))).body.data.email as { attachments: Array<{ id: string; name: string }> };
    const download = (name: string) =>
      owner
        .as(request(app).get(`/api/emails/${emailId}/attachments/${attachments.find((a) => a.name === name)!.id}`))
        .buffer(true)
        .parse(binaryParser);
    const image = await download('logo.png');
    expect(image.status).to.equal(200);
    expect(Buffer.compare(image.body as Buffer, TINY_PNG)).to.equal(0);
    expect(image.headers).to.include({ 'content-type': 'image/png', 'cross-origin-resource-policy': 'same-site', 'x-content-type-options': 'nosniff' });
    expect(image.headers['content-disposition']).to.equal('inline; filename=logo.png');
    const pdf = await download('faktura.pdf');
    expect(pdf.headers['content-disposition']).to.equal('attachment; filename=faktura.pdf');
    expect(pdf.headers).to.include({ 'cross-origin-resource-policy': 'same-site', 'x-content-type-options': 'nosniff' });
  });

  it('a page of a CORS_ORIGIN may embed a download (CORP cross-origin by its Referer); any other page may not', async () => {
    const overrides = { CORS_ORIGIN: 'http://127.0.0.1:5173' };
    const appWithOrigin = await testApp(overrides);
    const { attachments } = (await owner.as(request(app).get(`/api/emails/${emailId}`))).body.data.email as { attachments: Array<{ id: string; name: string }> };
    const path = `/api/emails/${emailId}/attachments/${attachments.find((a) => a.name === 'logo.png')!.id}`;
    const embedded = await owner.as(request(appWithOrigin).get(path)).set('Referer', 'http://127.0.0.1:5173/mail/1').buffer(true).parse(binaryParser);
    expect(embedded.status).to.equal(200);
    expect(embedded.headers['cross-origin-resource-policy']).to.equal('cross-origin');
    const foreign = await owner.as(request(appWithOrigin).get(path)).set('Referer', 'https://evil.example/').buffer(true).parse(binaryParser);
    expect(foreign.headers['cross-origin-resource-policy']).to.equal('same-site');
  });

  it('many downloads over one keep-alive connection leak no listeners (no MaxListenersExceededWarning)', async () => {
    const { attachments } = (await owner.as(request(app).get(`/api/emails/${emailId}`))).body.data.email as { attachments: Array<{ id: string; name: string }> };
    const path = `/api/emails/${emailId}/attachments/${attachments.find((a) => a.name === 'logo.png')!.id}`;
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    const server = http.createServer(app).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const port = (server.address() as AddressInfo).port;
      const one = () =>
        new Promise<number>((resolve, reject) => {
          http
            .get({ host: '127.0.0.1', port, path, agent, headers: { Authorization: owner.session.bearer } }, (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode ?? 0));
            })
            .on('error', reject);
        });
      // One after another on one connection, then a burst queued on it (as a browser loads a page of images).
      for (let i = 0; i < 12; i++) expect(await one()).to.equal(200);
      expect(await Promise.all(Array.from({ length: 12 }, one))).to.deep.equal(Array(12).fill(200));
      await new Promise((r) => setImmediate(r));
      expect(warnings).to.deep.equal([]);
    } finally {
      process.off('warning', onWarning);
      agent.destroy();
      server.close();
    }
  });
});
