/**
 * A forward's body (issue 47): what the user wrote, then the forwarded email under a header block
 * (From, Date, Subject, To) as mail clients write it. Pure; its attachments are carried by
 * SendOrigins.carry (streamed from the mail server, through the same intake as uploaded files).
 */
import type { AddressEntry, EmailRecord } from '../emails/email-records.js';
import { textAsHtml } from '../signatures/signature-text.js';
import { headerText } from './header-text.js';

const RULE = '---------- Forwarded message ---------';

type Forwarded = Pick<EmailRecord, 'from' | 'to' | 'subject' | 'date' | 'body' | 'addresses'>;

function addressList(entries: AddressEntry[] | undefined, fallback: string | null): string {
  if (!entries?.length) return headerText(fallback);
  return entries.map((a) => (a.name ? `${headerText(a.name)} <${a.email}>` : a.email)).join(', ');
}

/** The header lines of the quote, values cleaned of anything that could break a line. */
export function forwardHeaders(f: Forwarded): Array<[string, string]> {
  return [
    ['From', addressList(f.addresses?.from, f.from)],
    ['Date', f.date ? f.date.toUTCString() : ''],
    ['Subject', headerText(f.subject)],
    ['To', addressList(f.addresses?.to, f.to)],
  ];
}

export function withForwardQuote(content: { text: string; html?: string }, f: Forwarded): { text: string; html?: string } {
  const headers = forwardHeaders(f);
  const text = `${content.text}\n\n${RULE}\n${headers.map(([k, v]) => `${k}: ${v}`).join('\n')}\n\n${f.body ?? ''}`;
  if (content.html === undefined) return { text };
  const block = headers.map(([k, v]) => `${k}: ${textAsHtml(v)}`).join('<br>');
  const html = `${content.html}<div class="crm-forward"><p>${RULE}<br>${block}</p><blockquote>${textAsHtml(f.body ?? '')}</blockquote></div>`;
  return { text, html };
}
