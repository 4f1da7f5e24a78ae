/** Reading the export zip in tests (yauzl), and raw messages with an attachment. */
import { randomUUID } from 'node:crypto';
import yauzl from 'yauzl';

/** Every entry of a zip in memory: name → text. */
export async function unzip(buffer: Buffer): Promise<Map<string, string>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => yauzl.fromBuffer(buffer, { lazyEntries: true }, (err, z) => (err ? reject(err) : resolve(z))));
  const files = new Map<string, string>();
  await new Promise<void>((resolve, reject) => {
    zip.on('error', reject);
    zip.on('end', () => resolve());
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (err, stream) => {
        if (err) return reject(err);
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('error', reject);
        stream.on('end', () => {
          files.set(entry.fileName, Buffer.concat(chunks).toString('utf8'));
          zip.readEntry();
        });
      });
    });
    zip.readEntry();
  });
  return files;
}

/** A JSON Lines file as objects. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function lines<T = any>(text: string | undefined): T[] {
  return (text ?? '')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
}

/** A text email with one attachment of `size` bytes (base64 in the message). */
export function messageWithAttachment(o: { from: string; to: string; subject: string; body: string; date: Date; file: string; size: number }): string {
  const boundary = `mixed-${randomUUID()}`;
  const content =
    Buffer.alloc(o.size, 0x41)
      .toString('base64')
      .match(/.{1,76}/g) ?? [];
  return [
    `From: ${o.from}`,
    `To: ${o.to}`,
    `Subject: ${o.subject}`,
    `Date: ${o.date.toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: <${randomUUID()}@crm.test>`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 7bit',
    '',
    o.body,
    `--${boundary}`,
    `Content-Type: application/pdf; name="${o.file}"`,
    `Content-Disposition: attachment; filename="${o.file}"`,
    'Content-Transfer-Encoding: base64',
    '',
    ...content,
    `--${boundary}--`,
    '',
  ].join('\r\n');
}
