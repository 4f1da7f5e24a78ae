/**
 * HTML bodies are read from the mail server when an email is opened, never stored by the CRM (like
 * attachments): the sync keeps only the text it searches and previews. See
 * docs/adr/0107-html-body.md. One Email/get per account covers a whole thread page. If the mail
 * server cannot answer in time, the email is still served with `html: null` and its text body.
 *
 * What a page costs is bounded (issue 52, finding 5; docs/adr/0162-html-cleaned-in-worker-threads.md):
 * the bodies are cleaned in worker threads with a time budget (html-render-pool.ts), a page reads at
 * most HTML_PAGE_MAX_BYTES of HTML (the sizes are asked first; emails past the budget answer
 * `htmlOmitted: page_limit`), and one user has at most HTML_RENDERS_PER_USER such requests in
 * progress (429 with Retry-After beyond).
 */
import type { EmailAccountAccess } from '../email-accounts/account-access.js';
import { responseFor, type Email, type JmapClient } from '../jmap/index.js';
import type { Logger } from '../logging/logger.js';
import type { EmailAccount } from '../models/index.js';
import type { ConcurrencyGate } from '../shared/concurrency-gate.js';
import type { EmailRecord, HtmlOmitted } from './email-records.js';
import type { HtmlRenderPool } from './html-render-pool.js';
import { normaliseCid } from './html-sanitiser.js';

/** Each HTML part is cut by the server at this size (UTF-8 bytes); a longer newsletter ends early. */
export const HTML_CAP_BYTES = 512 * 1024;
/** How long an email detail waits for the mail server before answering without the HTML. */
const HTML_WAIT_MS = 5000;

export interface HtmlOptions {
  /** Let remote (http/https) images load; by default they wait in data-crm-src. */
  remoteImages: boolean;
  /** Where an attachment of an email downloads from (the inline images' new src). */
  attachmentUrl: (emailId: string, attachmentId: string) => string;
}

export class HtmlBodies {
  constructor(
    private readonly deps: {
      accounts: EmailAccountAccess;
      mail: { clientFor(account: EmailAccount): JmapClient };
      logger: Logger;
      pool: HtmlRenderPool;
      /** Per user: requests reading HTML in progress (HTML_RENDERS_PER_USER). */
      renders: ConcurrencyGate;
      /** HTML_PAGE_MAX_BYTES. */
      pageMaxBytes: number;
      waitMs?: number;
    },
  ) {}

  /**
   * Sets `html` (and `blockedImages`) on each email, and marks the attachments its body shows inline.
   * The emails must be ones the caller may read (EmailService.get / thread).
   */
  async fill(userId: string, emails: EmailRecord[], options: HtmlOptions): Promise<void> {
    // Throws RateLimitError (429) beyond the user's bound; the place is given back however this ends.
    await this.within(userId, this.deps.renders.enter(userId), emails, options);
  }

  /**
   * As fill, for a request that must not be refused (a change of read state answers the email): it
   * waits for the user's place up to the mail server's wait instead of a 429, and past it answers the
   * emails with their text (`htmlOmitted: time_budget`, as a body not cleaned in time).
   */
  async fillWaiting(userId: string, emails: EmailRecord[], options: HtmlOptions): Promise<void> {
    const release = await this.deps.renders.enterWithin(userId, this.deps.waitMs ?? HTML_WAIT_MS);
    if (release) return this.within(userId, release, emails, options);
    for (const email of emails) {
      email.html = null;
      email.blockedImages = 0;
      email.htmlOmitted = 'time_budget';
    }
  }

  private async within(userId: string, release: () => void, emails: EmailRecord[], options: HtmlOptions): Promise<void> {
    try {
      const byAccount = new Map<string, EmailRecord[]>();
      for (const email of emails) {
        email.html = null;
        email.blockedImages = 0;
        email.htmlOmitted = null;
        byAccount.set(email.emailAccountId, [...(byAccount.get(email.emailAccountId) ?? []), email]);
      }
      const budget = { bytes: this.deps.pageMaxBytes };
      // One account after the other: the page's byte budget is spent in page order.
      for (const [accountId, list] of byAccount) await this.fillAccount(userId, accountId, list, options, budget);
    } finally {
      release();
    }
  }

  private async fillAccount(userId: string, accountId: string, emails: EmailRecord[], options: HtmlOptions, budget: { bytes: number }): Promise<void> {
    let found: Map<string, Email>;
    try {
      const account = await this.deps.accounts.readableAccount(userId, accountId);
      const client = this.deps.mail.clientFor(account);
      const wanted = emails.length > 1 ? await this.withinBudget(client, account.jmapAccountId, emails, budget) : emails;
      const ids = wanted.map((e) => e.jmapId);
      found = ids.length === 0 ? new Map<string, Email>() : await this.fetch(client, account.jmapAccountId, ids);
    } catch (err) {
      this.deps.logger.warn('email HTML body not available from the mail server', { err, emailAccountId: accountId });
      return;
    }
    await Promise.all(
      emails.map(async (email) => {
        const source = found.get(email.jmapId);
        const dirty = source && htmlOf(source);
        if (dirty) await this.applyHtml(email, dirty, options);
      }),
    );
  }

  /**
   * The emails whose HTML fits what is left of the page's budget, in page order (the first one always,
   * cut at HTML_CAP_BYTES by the server); the others are marked `page_limit`. Asks the mail server for
   * the parts' sizes only (no content).
   */
  private async withinBudget(client: JmapClient, accountId: string, emails: EmailRecord[], budget: { bytes: number }): Promise<EmailRecord[]> {
    const sizes = await this.get(
      client,
      accountId,
      emails.map((e) => e.jmapId),
      { properties: ['id', 'htmlBody'], bodyProperties: ['partId', 'type', 'size'] },
    );
    const wanted: EmailRecord[] = [];
    for (const email of emails) {
      const parts = htmlParts(sizes.get(email.jmapId));
      if (parts.length === 0) continue;
      const bytes = Math.min(
        HTML_CAP_BYTES * parts.length,
        parts.reduce((n, p) => n + (p.size ?? HTML_CAP_BYTES), 0),
      );
      if (bytes > budget.bytes && budget.bytes < this.deps.pageMaxBytes) {
        email.htmlOmitted = 'page_limit';
        continue;
      }
      budget.bytes -= bytes;
      wanted.push(email);
    }
    return wanted;
  }

  private fetch(client: JmapClient, accountId: string, ids: string[]): Promise<Map<string, Email>> {
    return this.get(client, accountId, ids, {
      properties: ['id', 'htmlBody', 'bodyValues'],
      bodyProperties: ['partId', 'type'],
      fetchHTMLBodyValues: true,
      maxBodyValueBytes: HTML_CAP_BYTES,
    });
  }

  private async applyHtml(email: EmailRecord, dirty: string, options: HtmlOptions): Promise<void> {
    const attachments = email.attachments ?? [];
    const inlineImages = new Map<string, string>();
    for (const a of attachments) if (a.cid) inlineImages.set(normaliseCid(a.cid), options.attachmentUrl(email.id, a.id));
    const clean = await this.deps.pool.sanitise(dirty, { inlineImages, remoteImages: options.remoteImages });
    if (typeof clean === 'string') {
      email.htmlOmitted = clean satisfies HtmlOmitted;
      return;
    }
    email.html = clean.html;
    email.blockedImages = clean.blockedImages;
    // An image the body shows is not a file to offer, whatever its Content-Disposition said.
    for (const a of attachments) if (a.cid && clean.referencedCids.has(normaliseCid(a.cid))) a.inline = true;
  }

  private async get(client: JmapClient, accountId: string, ids: string[], args: Record<string, unknown>): Promise<Map<string, Email>> {
    const responses = await client.call([['Email/get', { accountId, ids, ...args }, 'h']], { signal: AbortSignal.timeout(this.deps.waitMs ?? HTML_WAIT_MS) });
    const list = responseFor(responses, 'h', 'Email/get').list;
    return new Map((Array.isArray(list) ? (list as Email[]) : []).map((e) => [e.id, e]));
  }
}

/** The text/html parts of htmlBody (a text/plain part there is the text body again). */
function htmlParts(email: Email | undefined): NonNullable<Email['htmlBody']> {
  return (email?.htmlBody ?? []).filter((p) => (p.type ?? '').toLowerCase() === 'text/html' && p.partId);
}

/** The text/html parts of htmlBody, joined; undefined for a message without HTML (the text body says it all). */
function htmlOf(email: Email): string | undefined {
  const values = email.bodyValues ?? {};
  const html = htmlParts(email)
    .map((p) => values[p.partId!]?.value ?? '')
    .join('\n');
  return html.trim() === '' ? undefined : html;
}
