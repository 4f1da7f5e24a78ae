import crypto from 'node:crypto';
import fc from 'fast-check';
import { elfFixture, pdfFixture, xlsxFixture } from '../../timesheets/fixtures.js';
import { nastyQueryValue, nastyString, type BodyChoice } from './arbitraries.js';

/**
 * Upload forms as clients get them wrong: fields missing, repeated or misnamed, many parts, files of
 * the wrong kind or with hostile names, bodies cut short or with a boundary that does not match.
 */

type Part = { name: string; value: string } | { name: string; filename: string; content: Buffer; contentType: string };

const PDF = pdfFixture();
const XLSX = xlsxFixture();
const ELF = elfFixture();

const fileName = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('vykaz.pdf', 'Výkaz máj 2026.pdf', 'hodiny.xlsx', 'stare.xls', 'A.PDF') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '../../../etc/passwd.pdf',
      '..\\..\\boot.pdf',
      '/abs/path.pdf',
      'C:\\Users\\x\\a.pdf',
      '.pdf',
      '..pdf',
      'noext',
      'a.exe',
      'a.pdf.exe',
      'a.exe.pdf',
      '\u202Efdp.exe',
      'a\u0000.pdf',
      'a%00.pdf',
      'a"b.pdf',
      'a\r\nX-Injected: 1.pdf',
      `${'x'.repeat(1000)}.pdf`,
      '',
      ' ',
      '.',
      '..',
    ),
  },
  { weight: 1, arbitrary: nastyString.map((s) => `${s.slice(0, 200)}.pdf`) },
);

const content = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(PDF, XLSX) },
  { weight: 2, arbitrary: fc.constantFrom(ELF, Buffer.alloc(0), Buffer.from('%PDF-'), Buffer.from('PK\u0003\u0004')) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 2048 }).map((a) => Buffer.from(a)) },
);

const fieldName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('year', 'month', 'file') },
  { weight: 1, arbitrary: fc.constantFrom('files', 'file[]', 'upload', 'Year', '', '__proto__', 'constructor', 'x'.repeat(40)) },
);

const part: fc.Arbitrary<Part> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      name: fieldName,
      value: fc.oneof({ weight: 3, arbitrary: fc.constantFrom('2026', '5', '12', '2000', '2100') }, { weight: 2, arbitrary: nastyQueryValue }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      name: fc.oneof({ weight: 5, arbitrary: fc.constant('file') }, { weight: 1, arbitrary: fieldName }),
      filename: fileName,
      content,
      contentType: fc.constantFrom('application/pdf', 'application/octet-stream', 'text/plain', 'image/png', ''),
    }),
  },
);

/** The form a browser would send, so that some uploads get through and the rest differs from it. */
const wellFormed: fc.Arbitrary<Part[]> = fc
  .record({ year: fc.constantFrom('2026', '2025'), month: fc.constantFrom('1', '5', '12'), file: fc.constantFrom(PDF, XLSX) })
  .map(({ year, month, file }) => [
    { name: 'year', value: year },
    { name: 'month', value: month },
    { name: 'file', filename: file === PDF ? 'vykaz.pdf' : 'vykaz.xlsx', content: file, contentType: 'application/octet-stream' },
  ]);

function encode(parts: Part[], boundary: string): Buffer {
  const escape = (s: string) => s.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${escape(p.name)}"`;
    if ('filename' in p) head += `; filename="${escape(p.filename)}"${p.contentType ? `\r\nContent-Type: ${p.contentType}` : ''}`;
    chunks.push(Buffer.from(`${head}\r\n\r\n`, 'utf8'), 'filename' in p ? p.content : Buffer.from(p.value, 'utf8'), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

const DAMAGE = fc.constantFrom('none', 'none', 'none', 'truncate', 'no-closing', 'wrong-boundary', 'no-boundary', 'json', 'empty');

function damaged(parts: Part[], damage: string, cut: number): { body: Buffer; contentType: string } {
  const boundary = `----fuzz${crypto.randomBytes(8).toString('hex')}`;
  let body = encode(parts, boundary);
  let contentType = `multipart/form-data; boundary=${boundary}`;
  if (damage === 'truncate') body = body.subarray(0, Math.floor(body.length * cut));
  if (damage === 'no-closing') body = body.subarray(0, body.length - boundary.length - 6);
  if (damage === 'wrong-boundary') contentType = 'multipart/form-data; boundary=something-else';
  if (damage === 'no-boundary') contentType = 'multipart/form-data';
  if (damage === 'json') contentType = 'application/json';
  if (damage === 'empty') body = Buffer.alloc(0);
  return { body, contentType };
}

export const multipartBody: fc.Arbitrary<BodyChoice> = fc
  .record({
    parts: fc.oneof({ weight: 2, arbitrary: wellFormed }, { weight: 3, arbitrary: fc.array(part, { maxLength: 9 }) }),
    damage: DAMAGE,
    cut: fc.double({ min: 0, max: 1, noNaN: true }),
  })
  .map(({ parts, damage, cut }) => damaged(parts, damage, cut));

/**
 * Send forms (POST /api/emails, issue 26): text fields in any order around the files, names with
 * CR/LF, executables, unknown fields; what the world's accounts are is not known here, so most end
 * as 400/404 before anything could reach a mail server.
 */
const sendPart: fc.Arbitrary<Part> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      name: fc.constantFrom('emailAccountId', 'contactId', 'to', 'cc', 'bcc', 'subject', 'text', 'html', 'replyAll', 'priority', '__proto__'),
      value: fc.oneof(
        {
          weight: 3,
          arbitrary: fc.constantFrom(
            '00000000-0000-4000-8000-000000000000',
            'a@b.sk',
            'Ana <a@b.sk>, b@c.sk',
            'X\r\nBcc: evil@x.sk <a@b.sk>',
            'Ahoj\r\nReply-To: x@y.sk',
            'true',
            '',
          ),
        },
        { weight: 2, arbitrary: nastyQueryValue },
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      name: fc.constantFrom('attachments', 'attachments', 'attachment', 'file'),
      filename: fc.oneof(fileName, fc.constantFrom('setup.exe', 'tool.zip', 'x.svg', 'obraz.iso', 'a.appref-ms')),
      content,
      contentType: fc.constantFrom('application/pdf', 'application/octet-stream', ''),
    }),
  },
);

export const sendFormBody: fc.Arbitrary<BodyChoice> = fc
  .record({ parts: fc.array(sendPart, { maxLength: 8 }), damage: DAMAGE, cut: fc.double({ min: 0, max: 1, noNaN: true }) })
  .map(({ parts, damage, cut }) => damaged(parts, damage, cut));
