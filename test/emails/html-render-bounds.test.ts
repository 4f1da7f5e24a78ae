import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { HtmlRenderPool } from '../../src/emails/html-render-pool.js';
import { createLogger } from '../../src/logging/logger.js';
import { heldRenders } from '../support/held-renders.js';
import { testApp, testContext } from '../support/harness.js';
import { startHoldingJmapProxy, type HoldingJmapProxy } from '../support/holding-jmap-proxy.js';
import { until } from '../support/poll.js';
import { testEnv } from '../support/test-env.js';
import { crmUser, freshMailUser, linkViaApi, put, type CrmUser, type MailUser } from '../sync/helpers.js';

/** Styled HTML the way newsletters come: every paragraph with its inline style (what makes the sanitiser slow). */
function styledHtml(bytes: number, marker: string): string {
  const row = (i: number) =>
    `<p style="color:#333333;font-family:Arial,Helvetica,sans-serif;font-size:14px;line-height:20px;margin:0 0 8px 0;padding:0">${marker} riadok ${i}</p>\n`;
  const rows: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    rows.push(row(i));
    size += rows[i].length;
  }
  return `<html><body><table style="width:100%;border-collapse:collapse"><tr><td>${rows.join('')}</td></tr></table></body></html>`;
}

interface Box {
  owner: CrmUser;
  mail: MailUser;
  accountId: string;
}

/**
 * Issue 52, finding 5: reading HTML bodies is bounded. They are cleaned in worker threads with a time
 * budget (a body over it answers its text), a page reads at most HTML_PAGE_MAX_BYTES of HTML, and one
 * user has at most HTML_RENDERS_PER_USER such reads in progress (429 beyond) while everyone else, and
 * the health check, are answered. Real Cyrus, through a proxy that can hold the mail server's answers.
 */
describe('emails: HTML bodies cost a bounded share of the process', function () {
  this.timeout(180_000);
  let proxy: HoldingJmapProxy;
  let app: Express;
  let ctx: AppContext;
  let settings: Record<string, string>;

  /** A mailbox linked and synced in `ctx`, holding `messages` (put before the link). */
  const boxWith = async (
    messages: Array<{ subject: string; html: string; marker?: string; messageId?: string; inReplyTo?: string | string[] }>,
    on: { app: Express; ctx: AppContext } = { app, ctx },
  ): Promise<Box> => {
    const mail = await freshMailUser('html-bounds');
    for (const [i, m] of messages.entries()) {
      await put(mail, 'INBOX', {
        from: `klient-${i}@firma.example`,
        to: mail.user,
        subject: m.subject,
        body: `Text ${m.subject} (${m.marker ?? 'bez značky'})`,
        html: m.html,
        messageId: m.messageId,
        inReplyTo: m.inReplyTo,
      });
    }
    const owner = await crmUser();
    return { owner, mail, accountId: await linkViaApi(on.app, on.ctx, owner, mail) };
  };
  const emailsOf = async (box: Box, on: Express = app): Promise<Array<{ id: string; subject: string }>> => {
    const res = await box.owner.as(request(on).get('/api/emails')).query({ emailAccountId: box.accountId, sort: 'oldest' });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.data.items as Array<{ id: string; subject: string }>;
  };

  before(async () => {
    proxy = await startHoldingJmapProxy(testEnv.jmapSessionUrl!);
    settings = { JMAP_SESSION_URL: proxy.sessionUrl, HTML_RENDERS_PER_USER: '1', HTML_PAGE_MAX_BYTES: '65536' };
    [app, ctx] = await Promise.all([testApp(settings), testContext(settings)]);
  });

  after(async () => {
    await proxy?.close();
  });

  it("a member's read beyond HTML_RENDERS_PER_USER is refused (429, Retry-After) while theirs is held; another member and /api/health are answered", async () => {
    const mine = await boxWith([{ subject: 'Moja', html: styledHtml(2_000, 'moja') }]);
    const theirs = await boxWith([{ subject: 'Ich', html: styledHtml(2_000, 'ich') }]);
    const [myEmail] = await emailsOf(mine);
    const [theirEmail] = await emailsOf(theirs);
    proxy.hold((body) => body.includes('fetchHTMLBodyValues') && body.includes(JSON.stringify(mine.mail.user)));
    try {
      const first = mine.owner.as(request(app).get(`/api/emails/${myEmail.id}`)).then((r) => r);
      await until(() => proxy.held() === 1, { what: "the first read waiting for the mail server's HTML" });

      const second = await mine.owner.as(request(app).get(`/api/emails/${myEmail.id}`));
      expect(second.status, JSON.stringify(second.body)).to.equal(429);
      expect(second.headers['retry-after']).to.match(/^\d+$/);
      expect(second.body.error.code).to.equal('rate_limited');

      const other = await theirs.owner.as(request(app).get(`/api/emails/${theirEmail.id}`));
      expect(other.status).to.equal(200);
      expect(other.body.data.email.html).to.contain('ich riadok 1');
      expect((await request(app).get('/api/health')).status).to.equal(200);

      proxy.release();
      const answered = await first;
      expect(answered.status).to.equal(200);
      expect(answered.body.data.email.html).to.contain('moja riadok 1');
    } finally {
      proxy.release();
    }
  });

  it('a read-state change is never refused for the bound: it waits for the place and answers the email with its text', async () => {
    const mine = await boxWith([{ subject: 'Prečítaná', html: styledHtml(2_000, 'moja') }]);
    const [myEmail] = await emailsOf(mine);
    proxy.hold((body) => body.includes('fetchHTMLBodyValues') && body.includes(JSON.stringify(mine.mail.user)));
    try {
      const reading = mine.owner.as(request(app).get(`/api/emails/${myEmail.id}`)).then((r) => r);
      await until(() => proxy.held() === 1, { what: "the read waiting for the mail server's HTML" });
      // A client marks several emails read at once (test/hardening/fuzz-concurrency.test.ts): 200, not
      // 429, whether no place came within the wait (time_budget) or the held mail server did not answer.
      const marked = await mine.owner.as(request(app).patch(`/api/emails/${myEmail.id}`)).send({ isRead: true });
      expect(marked.status, JSON.stringify(marked.body)).to.equal(200);
      expect(marked.body.data.email).to.include({ isRead: true, html: null });
      proxy.release();
      expect((await reading).status).to.equal(200);
    } finally {
      proxy.release();
    }
  });

  it('a thread page reads at most HTML_PAGE_MAX_BYTES of HTML: later emails say page_limit, and each alone answers its HTML', async () => {
    const root = `${randomUUID()}@crm.test`;
    const second = `${randomUUID()}@crm.test`;
    const box = await boxWith([
      { subject: 'Vlákno 1', html: styledHtml(40_000, 'prvý'), marker: 'prvý', messageId: root },
      { subject: 'Re: Vlákno 1', html: styledHtml(40_000, 'druhý'), marker: 'druhý', messageId: second, inReplyTo: root },
      { subject: 'Re: Vlákno 1', html: styledHtml(40_000, 'tretí'), marker: 'tretí', inReplyTo: [root, second] },
    ]);
    const [first] = await emailsOf(box);
    const thread = await box.owner.as(request(app).get(`/api/emails/${first.id}/thread`));
    expect(thread.status, JSON.stringify(thread.body)).to.equal(200);
    const items = thread.body.data.items as Array<{ id: string; html: string | null; htmlOmitted: string | null; body: string }>;
    expect(items).to.have.length(3);
    const marker = (e: { body: string }) => /\((\S+)\)/.exec(e.body)?.[1];
    // The three have the same Date: the page's order among them is the thread's, whichever it is.
    expect(items.map((e) => [e.html === null, e.htmlOmitted])).to.deep.equal([
      [false, null],
      [true, 'page_limit'],
      [true, 'page_limit'],
    ]);
    expect(items.map(marker).sort()).to.deep.equal(['druhý', 'prvý', 'tretí']);
    expect(items[0].html).to.contain(`${marker(items[0])} riadok 1`);
    for (const e of items.slice(1)) {
      const alone = await box.owner.as(request(app).get(`/api/emails/${e.id}`));
      expect(alone.body.data.email).to.include({ htmlOmitted: null });
      expect(alone.body.data.email.html).to.contain(`${marker(e)} riadok 1`);
    }
  });

  it('a body not cleaned within HTML_RENDER_TIMEOUT_MS answers its text (time_budget), and the next read is answered', async () => {
    const box = await boxWith([{ subject: `Newsletter ${randomBytes(3).toString('hex')}`, html: styledHtml(400_000, 'dlhý') }]);
    const [email] = await emailsOf(box);
    const hurried = { ...settings, HTML_RENDER_TIMEOUT_MS: '10' };
    const cut = await box.owner.as(request(await testApp(hurried)).get(`/api/emails/${email.id}`));
    expect(cut.status).to.equal(200);
    expect(cut.body.data.email).to.include({ html: null, htmlOmitted: 'time_budget' });
    expect(cut.body.data.email.body).to.match(/^Text Newsletter/);
    const whole = await box.owner.as(request(app).get(`/api/emails/${email.id}`));
    expect(whole.body.data.email.html).to.contain('dlhý riadok 1');
  });

  it("answers another member, /api/health and the reader's own cheap requests while a thread page's bodies are being cleaned", async () => {
    // The pool of this app runs the real sanitiser behind a latch (test/support/held-renders.ts): its
    // renders stay in their worker threads until released, as long sanitize-html runs do.
    const latch = heldRenders();
    const heldSettings = { ...settings, HTML_RENDERS_PER_USER: '3', HTML_RENDER_THREADS: '2' };
    const heldCtx = await testContext(heldSettings);
    const pool = new HtmlRenderPool({ threads: 2, timeoutMs: 120_000, logger: createLogger('error', { silent: true }), worker: latch.worker });
    // Before anything builds the HTML bodies of this context, which take the pool from here.
    Object.defineProperty(heldCtx.services, 'htmlRenderPool', { value: pool });
    const heldApp = await testApp(heldSettings);
    try {
      const root = `${randomUUID()}@crm.test`;
      const reader = await boxWith(
        [
          { subject: 'Ponuka', html: styledHtml(3_000, 'ponuka-1'), marker: 'ponuka-1', messageId: root },
          { subject: 'Re: Ponuka', html: styledHtml(3_000, 'ponuka-2'), marker: 'ponuka-2', inReplyTo: root },
          { subject: 'Re: Ponuka', html: styledHtml(3_000, 'ponuka-3'), marker: 'ponuka-3', inReplyTo: root },
        ],
        { app: heldApp, ctx: heldCtx },
      );
      const other = await boxWith([{ subject: 'Iná', html: '<p>iná</p>' }], { app: heldApp, ctx: heldCtx });
      const [first] = await emailsOf(reader, heldApp);
      let answered = false;
      const page = reader.owner
        .as(request(heldApp).get(`/api/emails/${first.id}/thread`))
        .then((r) => r)
        .finally(() => (answered = true));
      // Two bodies in the two threads, held there; the third waits for a thread.
      await until(() => latch.started() === 2, { what: 'two bodies of the page being cleaned' });

      const me = await other.owner.as(request(heldApp).get('/api/auth/me'));
      expect(me.status).to.equal(200);
      expect(me.body.data.user.id).to.equal(other.owner.fixture.user.id);
      expect((await request(heldApp).get('/api/health')).status).to.equal(200);
      expect(await emailsOf(other, heldApp)).to.have.length(1);
      expect(await emailsOf(reader, heldApp)).to.have.length(3);
      expect(answered, 'the page was answered although its bodies are still held').to.equal(false);
      expect(latch.started()).to.equal(2);

      latch.release();
      const res = await page;
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const items = res.body.data.items as Array<{ html: string | null; htmlOmitted: string | null; body: string }>;
      expect(items.map((e) => e.htmlOmitted)).to.deep.equal([null, null, null]);
      // Each its own body, cleaned (whatever the thread's order of three emails of the same second).
      for (const e of items) expect(e.html).to.contain(`${/\((\S+)\)/.exec(e.body)?.[1]} riadok 1`);
      expect(items.map((e) => /\((\S+)\)/.exec(e.body)?.[1]).sort()).to.deep.equal(['ponuka-1', 'ponuka-2', 'ponuka-3']);
    } finally {
      latch.release();
      await pool.close();
    }
  });
});
