/**
 * Email/set create → a raw message, built the way Cyrus 3.6 builds one: text/plain alone, or
 * multipart/alternative for text and HTML, inside multipart/mixed when there are attachments; every
 * header RFC 2047-encoded where it is not ASCII.
 */
import crypto from 'node:crypto';
import type { Address } from './mime.js';

export interface ComposeInput {
  from?: Address[] | null;
  to?: Address[] | null;
  cc?: Address[] | null;
  bcc?: Address[] | null;
  replyTo?: Address[] | null;
  sender?: Address[] | null;
  subject?: string | null;
  messageId?: string[] | null;
  inReplyTo?: string[] | null;
  references?: string[] | null;
  sentAt?: string | null;
  /** Extra headers (`header:X-Foo: value` properties). */
  extraHeaders: Array<[string, string]>;
  text?: string;
  html?: string;
  attachments: Array<{ content: Buffer; type: string; name: string | null; disposition: string; cid: string | null }>;
}

const ascii = (s: string) => /^[\x20-\x7e]*$/.test(s);

function encodeWord(value: string): string {
  if (ascii(value)) return value;
  const q = Buffer.from(value, 'utf8')
    .toString('latin1')
    .replace(/[^A-Za-z0-9!*+\-/ ]/g, (ch) => `=${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)
    .replace(/ /g, '_');
  return `=?UTF-8?Q?${q}?=`;
}

function addressList(list: Address[]): string {
  return list
    .map((a) => {
      if (!a.name) return a.email;
      const name = ascii(a.name) ? `"${a.name.replace(/(["\\])/g, '\\$1')}"` : encodeWord(a.name);
      return `${name} <${a.email}>`;
    })
    .join(',\r\n ');
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

function rfc5322Date(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${DAYS[d.getUTCDay()]}, ${pad(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}

function textPart(text: string, subtype: string): string[] {
  const crlf = text.replace(/\r?\n/g, '\r\n');
  if (ascii(crlf.replace(/\r\n/g, ''))) return [`Content-Type: text/${subtype}`, '', crlf];
  return [`Content-Type: text/${subtype}; charset=utf-8`, 'Content-Transfer-Encoding: base64', '', ...base64Lines(Buffer.from(crlf, 'utf8'))];
}

function base64Lines(data: Buffer): string[] {
  return data.toString('base64').match(/.{1,76}/g) ?? [''];
}

function param(name: string, value: string): string {
  if (ascii(value)) return `${name}="${value.replace(/(["\\])/g, '\\$1')}"`;
  return `${name}*=utf-8''${encodeURIComponent(value)}`;
}

function multipart(subtype: string, parts: string[][]): string[] {
  const boundary = crypto.randomBytes(12).toString('hex');
  const lines = [`Content-Type: multipart/${subtype};boundary=${boundary}`, ''];
  for (const part of parts) lines.push(`--${boundary}`, ...part);
  lines.push(`--${boundary}--`, '');
  return lines;
}

/** The raw message (CRLF line ends). */
export function composeMessage(input: ComposeInput): Buffer {
  const headers = ['User-Agent: crm-test-jmap-fake', 'Mime-Version: 1.0'];
  if (input.messageId?.length) headers.push(`Message-Id: ${input.messageId.map((id) => `<${id}>`).join(' ')}`);
  headers.push(`Date: ${rfc5322Date(input.sentAt ? new Date(input.sentAt) : new Date())}`);
  const addressHeaders: Array<[string, Address[] | null | undefined]> = [
    ['Sender', input.sender],
    ['From', input.from],
    ['Reply-To', input.replyTo],
    ['To', input.to],
    ['Cc', input.cc],
    ['Bcc', input.bcc],
  ];
  for (const [name, list] of addressHeaders) if (list?.length) headers.push(`${name}: ${addressList(list)}`);
  if (input.inReplyTo?.length) headers.push(`In-Reply-To: ${input.inReplyTo.map((id) => `<${id}>`).join(' ')}`);
  if (input.references?.length) headers.push(`References: ${input.references.map((id) => `<${id}>`).join(' ')}`);
  if (input.subject) headers.push(`Subject: ${encodeWord(input.subject)}`);
  for (const [name, value] of input.extraHeaders) headers.push(`${name}: ${encodeWord(value)}`);

  let body =
    input.html !== undefined && input.text !== undefined
      ? multipart('alternative', [textPart(input.text, 'plain'), textPart(input.html, 'html')])
      : input.html !== undefined
        ? textPart(input.html, 'html')
        : textPart(input.text ?? '', 'plain');
  if (input.attachments.length > 0) {
    const files = input.attachments.map((a) => [
      `Content-Type: ${a.type}${a.name ? `; ${param('name', a.name)}` : ''}`,
      `Content-Disposition: ${a.disposition}${a.name ? `; ${param('filename', a.name)}` : ''}`,
      ...(a.cid ? [`Content-Id: <${a.cid}>`] : []),
      'Content-Transfer-Encoding: base64',
      '',
      ...base64Lines(a.content),
    ]);
    body = multipart('mixed', [body, ...files]);
  }
  return Buffer.from([...headers, ...body].join('\r\n'), 'utf8');
}
