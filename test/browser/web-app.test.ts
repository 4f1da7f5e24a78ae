/**
 * The staff web app's day one, in a real browser (Debian's chromium driven by playwright-core): a page
 * served from another origin (127.0.0.1, another port; CORS_ORIGIN names it) logs in, finds an HTML
 * email by a search word, shows it with its inline image, and replies with an attachment, all through
 * fetch() with the cookies, exactly as a frontend would.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import type { AppContext } from '../../src/app/context.js';
import { testApp, testContext } from '../support/harness.js';
import { buildHtmlMessage, TINY_PNG } from '../support/html-mail.js';
import { appendMessage } from '../support/imap.js';
import { crmUser, freshMailUser, linkViaApi, type CrmUser, type MailUser } from '../sync/helpers.js';
import { waitForServerEmails } from '../sending/helpers.js';
import { CHROMIUM_ARGS, chromiumPath } from './chromium.js';

/** What the page's script reports (plain JS in the page: the app code a frontend would ship). */
interface DayOne {
  login: { status: number; expires?: string };
  search: { status: number; subjects: string[]; from: unknown };
  detail: { status: number; attachments: Array<{ id: string; name: string; inline: boolean }>; src: string | null };
  loaded: boolean;
  reply: { status: number; error?: unknown; attachments?: string[] };
  again: { status: number; replayed: string | null };
}

const APP_SCRIPT = `
window.dayOne = async ({ api, username, password, word }) => {
  const call = async (method, path, body) => {
    const init = { method, credentials: 'include' };
    if (body !== undefined) { init.body = JSON.stringify(body); init.headers = { 'Content-Type': 'application/json' }; }
    const res = await fetch(api + path, init);
    return { status: res.status, body: await res.json() };
  };
  const login = await call('POST', '/api/auth/login', { username, password, rememberMe: true });
  const search = await call('GET', '/api/emails?search=' + encodeURIComponent(word));
  const item = search.body.data.items[0];
  const detail = await call('GET', '/api/emails/' + item.id);
  const box = document.getElementById('mail');
  box.innerHTML = detail.body.data.email.html;
  const img = box.querySelector('img');
  const loaded = await new Promise((resolve) => {
    if (img.complete && img.naturalWidth > 0) return resolve(true);
    img.onload = () => resolve(img.naturalWidth > 0);
    img.onerror = () => resolve(false);
    setTimeout(() => resolve(false), 10000);
  });
  const form = new FormData();
  form.append('text', 'Ďakujem, podpísaná zmluva v prílohe.');
  form.append('attachments', new Blob(['%PDF-1.4\\n%%EOF\\n'], { type: 'application/pdf' }), 'zmluva podpísaná.pdf');
  const key = crypto.randomUUID();
  const send = async () => {
    const res = await fetch(api + '/api/emails/' + item.id + '/reply', { method: 'POST', credentials: 'include', body: form, headers: { 'Idempotency-Key': key } });
    return { status: res.status, body: await res.json(), replayed: res.headers.get('Idempotent-Replayed') };
  };
  const reply = await send();
  const again = await send();
  return {
    login: { status: login.status, expires: login.body.data && login.body.data.accessTokenExpiresAt },
    search: { status: search.status, subjects: search.body.data.items.map((e) => e.subject), from: item && item.from },
    detail: { status: detail.status, attachments: detail.body.data.email.attachments, src: img.getAttribute('src') },
    loaded,
    reply: { status: reply.status, error: reply.body.error, attachments: reply.body.data && reply.body.data.email && reply.body.data.email.attachments.map((a) => a.name) },
    again: { status: again.status, replayed: again.replayed },
  };
};`;

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>CRM</title><script>${APP_SCRIPT}</script></head><body><div id="mail"></div></body></html>`;

function listen(server: http.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

describe('browser: the web app from another origin (chromium)', function () {
  this.timeout(180_000);
  let ctx: AppContext;
  let owner: CrmUser;
  let pageServer: http.Server;
  let apiServer: http.Server;
  let browser: BrowserContext;
  let userDataDir: string;
  let pageOrigin: string;
  let apiOrigin: string;
  const word = `zmluva${randomBytes(4).toString('hex')}`;
  let bobAddress: string;
  let bob: MailUser;

  before(async function () {
    const executablePath = chromiumPath();
    pageServer = http.createServer((_req, res) => {
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.end(PAGE);
    });
    pageOrigin = `http://127.0.0.1:${await listen(pageServer)}`;
    const overrides = { CORS_ORIGIN: `https://staging.example.sk,${pageOrigin}` };
    const app = await testApp(overrides);
    ctx = await testContext(overrides);
    apiServer = http.createServer(app);
    apiOrigin = `http://127.0.0.1:${await listen(apiServer)}`;

    const [alice, bobUser] = await Promise.all([freshMailUser('web-alice'), freshMailUser('web-bob')]);
    bob = bobUser;
    bobAddress = bob.user;
    owner = await crmUser();
    const accountId = await linkViaApi(app, ctx, owner, alice);
    const raw = buildHtmlMessage({
      from: `Bob <${bob.user}>`,
      to: alice.user,
      subject: `Návrh ${word}`,
      text: `Dobrý deň, posielam návrh ${word}.`,
      html: `<p>Dobrý deň, posielam <b>návrh ${word}</b>.</p><p><img id="logo" src="cid:logo@firma.sk" alt="logo"></p>`,
      inline: { cid: 'logo@firma.sk', name: 'logo.png', type: 'image/png', bytes: TINY_PNG },
    });
    await appendMessage({ user: alice.user, pass: alice.pass, mailbox: 'INBOX', raw });
    expect((await ctx.services.mailSync.syncAccount(accountId)).outcome).to.equal('ok');

    userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-chromium-'));
    browser = await chromium.launchPersistentContext(userDataDir, { executablePath, headless: true, args: CHROMIUM_ARGS });
  });

  after(async () => {
    await browser?.close();
    if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
    apiServer?.close();
    pageServer?.close();
  });

  it('logs in, searches without diacritics, shows the HTML email with its inline image, and replies with an attachment', async () => {
    const page = await browser.newPage();
    const seen: string[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/attachments/')) seen.push(`${r.status()} ${JSON.stringify(r.headers())}`);
    });
    page.on('requestfailed', (r) => seen.push(`failed ${r.url()} ${r.failure()?.errorText}`));
    page.on('console', (m) => seen.push(`console ${m.text()}`));
    await page.goto(`${pageOrigin}/`);
    const args = { api: apiOrigin, username: owner.fixture.username, password: 'Sync-Test-Pass-2024', word };
    const result = await page.evaluate<DayOne>(`window.dayOne(${JSON.stringify(args)})`);
    expect(result.login.status, JSON.stringify(result)).to.equal(200);
    expect(result.login.expires).to.be.a('string');
    expect(result.search.status).to.equal(200);
    expect(result.search.subjects).to.deep.equal([`Návrh ${word}`]);
    expect(result.search.from).to.deep.equal([{ name: 'Bob', email: bobAddress }]);
    expect(result.detail.status).to.equal(200);
    expect(result.detail.attachments).to.have.length(1);
    expect(result.detail.attachments[0]).to.include({ name: 'logo.png', inline: true });
    expect(result.detail.src).to.equal(`${apiOrigin}/api/emails/${await firstEmailId()}/attachments/${result.detail.attachments[0].id}`);
    expect(result.loaded, `the inline image loads from the API origin with the cookies ${seen.join('\n')}`).to.equal(true);
    expect(result.reply.status, JSON.stringify(result.reply)).to.equal(201);
    expect(result.reply.attachments).to.deep.equal(['zmluva podpísaná.pdf']);
    // The replayed answer is readable from the other origin (exposed header).
    expect(result.again).to.deep.equal({ status: 201, replayed: 'true' });
    const [atBob] = await waitForServerEmails(bob, `Re: Návrh ${word}`);
    expect(
      atBob?.attachments?.map((a) => a.name),
      'the reply reached bob once, with its file',
    ).to.deep.equal(['zmluva podpísaná.pdf']);
  });

  async function firstEmailId(): Promise<string> {
    const [row] = await ctx.db.sequelize.query<{ id: string }>(`SELECT id FROM emails WHERE subject = $1`, { bind: [`Návrh ${word}`], type: 'SELECT' as never });
    return row.id;
  }
});
