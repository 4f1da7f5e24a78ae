import CFB from 'cfb';
import * as XLSX from 'xlsx';

export const MAX_BYTES = 10 * 1024 * 1024;

/**
 * A minimal PDF with a correct cross-reference table. With `totalSize`, a padding stream object makes
 * the file exactly that many bytes while it stays a well-formed PDF.
 */
export function pdfFixture(totalSize?: number): Buffer {
  const build = (padding: number): Buffer => {
    const objects = ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>'];
    if (padding > 0) objects.push(`<< /Length ${padding} >>\nstream\n${'A'.repeat(padding)}\nendstream`);
    let body = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
    const offsets: number[] = [];
    objects.forEach((content, i) => {
      offsets.push(Buffer.byteLength(body, 'latin1'));
      body += `${i + 1} 0 obj\n${content}\nendobj\n`;
    });
    const xrefAt = Buffer.byteLength(body, 'latin1');
    body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
    for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
    body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
    return Buffer.from(body, 'latin1');
  };
  if (totalSize === undefined) return build(0);
  // The padding's own digits (in /Length and startxref) change the size; a few rounds settle it.
  let padding = Math.max(0, totalSize - build(0).length - 64);
  for (let round = 0; round < 10; round++) {
    const size = build(padding).length;
    if (size === totalSize) return build(padding);
    padding += totalSize - size;
  }
  throw new Error(`could not pad a PDF to ${totalSize} bytes`);
}

function workbook() {
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(
    wb,
    XLSX.utils.aoa_to_sheet([
      ['Dátum', 'Hodiny'],
      ['2026-05-04', 8],
      ['2026-05-05', 7.5],
    ]),
    'Máj',
  );
  return wb;
}

export function xlsxFixture(): Buffer {
  return XLSX.write(workbook(), { type: 'buffer', bookType: 'xlsx' }) as Buffer;
}

/** BIFF8 in a CFB container: what Excel 97-2003 writes (a root-level "Workbook" stream). */
export function xlsFixture(): Buffer {
  return XLSX.write(workbook(), { type: 'buffer', bookType: 'biff8' }) as Buffer;
}

/** A Word 97 document's container: valid CFB, no Workbook stream. */
export function docFixture(): Buffer {
  const container = CFB.utils.cfb_new();
  CFB.utils.cfb_add(container, '/WordDocument', Buffer.alloc(4096, 0x11));
  CFB.utils.cfb_add(container, '/1Table', Buffer.alloc(1024, 0x22));
  return Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array);
}

/** A .docx-shaped ZIP: a valid Office Open XML package, but a document, not a workbook. */
export function docxFixture(): Buffer {
  const zip = CFB.utils.cfb_new();
  CFB.utils.cfb_add(
    zip,
    '/[Content_Types].xml',
    Buffer.from(
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ),
  );
  CFB.utils.cfb_add(zip, '/word/document.xml', Buffer.from('<w:document/>'));
  return Buffer.from(CFB.write(zip, { type: 'buffer', fileType: 'zip' }) as Uint8Array);
}

export function elfFixture(): Buffer {
  const header = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00]);
  return Buffer.concat([header, Buffer.alloc(2048, 0x90)]);
}

export function mzFixture(): Buffer {
  const exe = Buffer.alloc(2048, 0);
  exe.write('MZ', 0, 'latin1');
  exe.writeUInt32LE(0x80, 0x3c);
  exe.write('PE\0\0', 0x80, 'latin1');
  return exe;
}
