/**
 * HTML bodies are read from the mail server when an email is opened, never stored by the CRM (like
 * attachments): the sync keeps only the text it searches and previews. See
 * docs/adr/0107-html-body.md. One Email/get per account covers a whole thread page. If the mail
 * server cannot answer in time, the email is still served with `html: null` and its text body.
 */
import type { EmailAccountAccess } from '../email-accounts/account-access.js';
import { responseFor, type Email, type JmapClient } from '../jmap/index.js';
import type { Logger } from '../logging/logger.js';
import type { EmailAccount } from '../models/index.js';
import type { EmailRecord } from './email-records.js';
import { normaliseCid, sanitiseEmailHtml } from './html-sanitiser.js';

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
      waitMs?: number;
    },
  ) {}

  /**
   * Sets `html` (and `blockedImages`) on each email, and marks the attachments its body shows inline.
   * The emails must be ones the caller may read (EmailService.get / thread).
   */
  async fill(userId: string, emails: EmailRecord[], options: HtmlOptions): Promise<void> {
    const byAccount = new Map<string, EmailRecord[]>();
    for (const email of emails) {
      email.html = null;
      email.blockedImages = 0;
      byAccount.set(email.emailAccountId, [...(byAccount.get(email.emailAccountId) ?? []), email]);
    }
    await Promise.all([...byAccount].map(([accountId, list]) => this.fillAccount(userId, accountId, list, options)));
  }

  private async fillAccount(userId: string, accountId: string, emails: EmailRecord[], options: HtmlOptions): Promise<void> {
    let found: Map<string, Email>;
    try {
      const account = await this.deps.accounts.readableAccount(userId, accountId);
      found = await this.fetch(
        this.deps.mail.clientFor(account),
        account.jmapAccountId,
        emails.map((e) => e.jmapId),
      );
    } catch (err) {
      this.deps.logger.warn('email HTML body not available from the mail server', { err, emailAccountId: accountId });
      return;
    }
    for (const email of emails) {
      const source = found.get(email.jmapId);
      const dirty = source && htmlOf(source);
      if (dirty) applyHtml(email, dirty, options);
    }
  }

  private async fetch(client: JmapClient, accountId: string, ids: string[]): Promise<Map<string, Email>> {
    const responses = await client.call(
      [
        [
          'Email/get',
          {
            accountId,
            ids,
            properties: ['id', 'htmlBody', 'bodyValues'],
            bodyProperties: ['partId', 'type'],
            fetchHTMLBodyValues: true,
            maxBodyValueBytes: HTML_CAP_BYTES,
          },
          'h',
        ],
      ],
      { signal: AbortSignal.timeout(this.deps.waitMs ?? HTML_WAIT_MS) },
    );
    const list = responseFor(responses, 'h', 'Email/get').list;
    return new Map((Array.isArray(list) ? (list as Email[]) : []).map((e) => [e.id, e]));
  }
}

/** The text/html parts of htmlBody, joined; undefined for a message without HTML (the text body says it all). */
function htmlOf(email: Email): string | undefined {
  const values = email.bodyValues ?? {};
  const parts = (email.htmlBody ?? []).filter((p) => (p.type ?? '').toLowerCase() === 'text/html' && p.partId);
  const html = parts.map((p) => values[p.partId!]?.value ?? '').join('\n');
  return html.trim() === '' ? undefined : html;
}

function applyHtml(email: EmailRecord, dirty: string, options: HtmlOptions): void {
  const attachments = email.attachments ?? [];
  const inlineImages = new Map<string, string>();
  for (const a of attachments) if (a.cid) inlineImages.set(normaliseCid(a.cid), options.attachmentUrl(email.id, a.id));
  const clean = sanitiseEmailHtml(dirty, { inlineImages, remoteImages: options.remoteImages });
  email.html = clean.html;
  email.blockedImages = clean.blockedImages;
  // An image the body shows is not a file to offer, whatever its Content-Disposition said.
  for (const a of attachments) if (a.cid && clean.referencedCids.has(normaliseCid(a.cid))) a.inline = true;
}
