/**
 * A signature appended to what is sent: pure functions (test/unit/signature-text.test.ts). The text
 * part gets the RFC 3676 §4.3 separator ("-- " on a line of its own), so mail clients can tell the
 * signature apart and leave it out of quotes; the HTML part gets the same line in a block of its own.
 */

export interface Signature {
  text: string;
  html: string | null;
}

export interface Body {
  text: string;
  html?: string;
}

const SEPARATOR = '-- ';

/** Text as HTML: escaped, line breaks kept. */
export function textAsHtml(text: string): string {
  return escapeHtml(text).replace(/\r?\n/g, '<br>');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The body with the signature below it; an empty signature leaves the body as it is. */
export function withSignature(body: Body, signature: Signature | null | undefined): Body {
  if (!signature || (signature.text.trim() === '' && !signature.html)) return body;
  const text = `${body.text.replace(/\s+$/, '')}\n\n${SEPARATOR}\n${signature.text}`;
  if (body.html === undefined) return { text };
  const html = `${body.html}<div class="crm-signature">${SEPARATOR}<br>${signature.html ?? textAsHtml(signature.text)}</div>`;
  return { text, html };
}
