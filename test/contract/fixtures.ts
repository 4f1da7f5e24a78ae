/** Fixtures shared by the two halves of the JMAP contract suite. */
import { randomUUID } from 'node:crypto';

export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the promise to reject');
}

export const TEXT_PART = 'Text časť.';
export const HTML_PART = '<p>HTML časť <img src="cid:logo@firma.example"></p>\r\n';

/**
 * mixed [ alternative [ text/plain, related [ text/html, inline image ] ], attachment ]: the shape
 * mail clients send, with an RFC 2231 file name and quoted-printable text.
 */
export function multipartFixture(to: string, subject: string): { raw: string; pdf: Buffer; png: Buffer } {
  const pdf = Buffer.from('%PDF-1.4\n% contract\n', 'latin1');
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const raw = [
    'From: Firma <info@firma.example>',
    `To: ${to}`,
    `Subject: ${subject}`,
    'Date: Tue, 04 Mar 2025 08:00:00 +0100',
    `Message-ID: <${randomUUID()}@firma.example>`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="mix"',
    '',
    '--mix',
    'Content-Type: multipart/alternative; boundary="alt"',
    '',
    '--alt',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: quoted-printable',
    '',
    'Text =C4=8Das=C5=A5.',
    '--alt',
    'Content-Type: multipart/related; boundary="rel"',
    '',
    '--rel',
    'Content-Type: text/html; charset=utf-8',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from(HTML_PART, 'utf8').toString('base64'),
    '--rel',
    'Content-Type: image/png; name="logo.png"',
    'Content-Disposition: inline; filename="logo.png"',
    'Content-ID: <logo@firma.example>',
    'Content-Transfer-Encoding: base64',
    '',
    png.toString('base64'),
    '--rel--',
    '--alt--',
    '--mix',
    'Content-Type: application/pdf',
    "Content-Disposition: attachment; filename*=UTF-8''Zmluva%20%C4%8D.%205.pdf",
    'Content-Transfer-Encoding: base64',
    '',
    pdf.toString('base64'),
    '--mix--',
    '',
  ].join('\r\n');
  return { raw, pdf, png };
}
