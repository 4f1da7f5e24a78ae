/**
 * A raw HTML message the way mail programs write one: multipart/mixed of a multipart/related (the
 * text and HTML alternatives plus an inline image referenced by Content-ID) and a file attachment.
 * For appendMessage (test/support/imap.ts).
 */
import { randomBytes, randomUUID } from 'node:crypto';

export interface HtmlMailSpec {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  inline?: { cid: string; name: string; type: string; bytes: Buffer };
  attachment?: { name: string; type: string; bytes: Buffer };
  date?: Date;
}

/** A 1x1 red PNG. */
export const TINY_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

export function buildHtmlMessage(spec: HtmlMailSpec): string {
  const boundary = (kind: string) => `${kind}-${randomBytes(6).toString('hex')}`;
  const mixed = boundary('mixed');
  const related = boundary('related');
  const alternative = boundary('alt');
  const b64 = (bytes: Buffer) => bytes.toString('base64').match(/.{1,76}/g) ?? [];
  const text = (subtype: string, value: string) => [`Content-Type: text/${subtype}; charset=utf-8`, 'Content-Transfer-Encoding: base64', '', ...b64(Buffer.from(value, 'utf8'))];
  const lines = [
    `From: ${spec.from}`,
    `To: ${spec.to}`,
    `Subject: =?UTF-8?B?${Buffer.from(spec.subject, 'utf8').toString('base64')}?=`,
    `Date: ${(spec.date ?? new Date()).toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: <${randomUUID()}@crm.test>`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${mixed}"`,
    '',
    `--${mixed}`,
    `Content-Type: multipart/related; boundary="${related}"`,
    '',
    `--${related}`,
    `Content-Type: multipart/alternative; boundary="${alternative}"`,
    '',
    `--${alternative}`,
    ...text('plain', spec.text),
    `--${alternative}`,
    ...text('html', spec.html),
    `--${alternative}--`,
  ];
  if (spec.inline) {
    lines.push(
      `--${related}`,
      `Content-Type: ${spec.inline.type}; name="${spec.inline.name}"`,
      'Content-Transfer-Encoding: base64',
      `Content-ID: <${spec.inline.cid}>`,
      '',
      ...b64(spec.inline.bytes),
    );
  }
  lines.push(`--${related}--`);
  if (spec.attachment) {
    lines.push(
      `--${mixed}`,
      `Content-Type: ${spec.attachment.type}; name="${spec.attachment.name}"`,
      `Content-Disposition: attachment; filename="${spec.attachment.name}"`,
      'Content-Transfer-Encoding: base64',
      '',
      ...b64(spec.attachment.bytes),
    );
  }
  lines.push(`--${mixed}--`, '');
  return lines.join('\r\n');
}
