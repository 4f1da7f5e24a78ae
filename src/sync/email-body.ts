/**
 * The body the CRM stores: plain text, HTML turned into text, capped in size. The server already
 * truncates each body value to BODY_CAP_BYTES (maxBodyValueBytes), so a 30 MB newsletter never
 * crosses the wire in full; the cap here covers the sum of several parts.
 */
import type * as HtmlToText from 'html-to-text';
import { lazyRequire } from '../shared/lazy-require.js';
import type { Email } from '../jmap/index.js';
import { capUtf8, cleanText } from './text-cleanup.js';

export const BODY_CAP_BYTES = 256 * 1024;

const htmlToTextLibrary = lazyRequire<typeof HtmlToText>('html-to-text');
let converter: ((html: string) => string) | undefined;

/** Compiled on first use: only the sync converts HTML, and a crm-admin command never does. */
function htmlToText(html: string): string {
  converter ??= htmlToTextLibrary().compile({
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
      { selector: 'style', format: 'skip' },
      { selector: 'script', format: 'skip' },
    ],
    // A pathological document (deep nesting, megabytes of markup) must not stall the sync.
    limits: { maxInputLength: BODY_CAP_BYTES * 2, maxDepth: 200 },
  });
  return converter(html);
}

/** Concatenates the text parts (textBody: text/plain, or text/html where there is no plain alternative). */
export function extractBody(email: Email): string | null {
  const parts = email.textBody ?? [];
  const values = email.bodyValues ?? {};
  const texts: string[] = [];
  for (const part of parts) {
    const value = part.partId ? values[part.partId]?.value : undefined;
    if (typeof value !== 'string' || value === '') continue;
    const type = (part.type ?? '').toLowerCase();
    texts.push(type === 'text/html' ? safeHtmlToText(value) : value);
  }
  const joined = cleanText(texts.join('\n\n').replace(/\r\n/g, '\n'))?.trim();
  if (!joined) return null;
  return capUtf8(joined, BODY_CAP_BYTES);
}

function safeHtmlToText(html: string): string {
  try {
    return htmlToText(html);
  } catch {
    // Better a crude text than a stuck account: strip the tags by hand.
    return html.replace(/<[^>]*>/g, ' ');
  }
}
