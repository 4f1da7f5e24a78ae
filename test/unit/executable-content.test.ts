import { expect } from 'chai';
import yazl from 'yazl';
import { ContentScan, isExecutableHead, isExecutableName } from '../../src/sending/executable-content.js';

/** A real ZIP archive (yazl) of the given entries, as bytes. */
async function zipOf(entries: Record<string, string>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, text] of Object.entries(entries)) zip.addBuffer(Buffer.from(text), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Feeds `data` to a scan in chunks of `size` bytes, as a stream would; true once it saw a program. */
function scan(data: Buffer, size = 7): boolean {
  const s = new ContentScan(data.subarray(0, 16));
  for (let at = 0; at < data.length; at += size) if (s.push(data.subarray(at, at + size))) return true;
  return false;
}

describe('unit: executable attachments', () => {
  it('names: programs, scripts and disk images, also behind trailing dots and spaces or in a path', () => {
    for (const name of ['setup.exe', 'Faktúra.PDF.exe', 'run.bat. . ', 'x.appref-ms', 'disk.iso', 'dir/tool.ps1', 'dir\\a.vbs', 'pic.svg']) {
      expect(isExecutableName(name), name).to.equal(true);
    }
    for (const name of ['faktura.pdf', 'vykaz.xlsx', 'exe', 'notes.txt', 'archive.zip', 'photo.jpeg']) expect(isExecutableName(name), name).to.equal(false);
  });

  it('heads: what file-type calls a program, an interpreter line, a virtual disk', () => {
    expect(isExecutableHead(Buffer.from('%PDF-1.7\n'), 'pdf')).to.equal(false);
    expect(isExecutableHead(Buffer.from('MZ\x90\x00'), 'exe')).to.equal(true);
    expect(isExecutableHead(Buffer.from('#!/bin/sh\nrm -rf /'), undefined)).to.equal(true);
    expect(isExecutableHead(Buffer.from('conectix\x00\x00'), undefined)).to.equal(true);
  });

  it('finds an executable entry of a ZIP whatever the chunking, and passes a harmless one', async () => {
    const bad = await zipOf({ 'readme.txt': 'hello', 'invoice.pdf.exe': 'MZ' });
    const good = await zipOf({ 'readme.txt': 'hello', 'faktura.pdf': '%PDF' });
    for (const size of [1, 5, 64, 65536]) {
      expect(scan(bad, size), `chunks of ${size}`).to.equal(true);
      expect(scan(good, size), `chunks of ${size}`).to.equal(false);
    }
  });

  it('reads the central directory too: a local header may name the entry differently', async () => {
    const zip = await zipOf({ 'tool.exx': 'MZ' });
    // Rename the entry in the local header only: what an unzip tool shows comes from the directory.
    const local = zip.indexOf(Buffer.from('tool.exx'));
    zip.write('tool.txt', local, 'latin1');
    const central = zip.indexOf(Buffer.from('tool.exx'));
    expect(scan(zip)).to.equal(false);
    zip.write('tool.exe', central, 'latin1');
    expect(scan(zip)).to.equal(true);
  });

  it('finds an archive appended to another file (a self-extractor, a PDF with a ZIP behind it)', async () => {
    const polyglot = Buffer.concat([Buffer.from('%PDF-1.7\n'.padEnd(4096, ' ')), await zipOf({ 'payload.js': 'x' })]);
    expect(scan(polyglot, 1000)).to.equal(true);
    expect(scan(Buffer.from('%PDF-1.7\n'.padEnd(50_000, 'PK'), 'latin1'), 1000)).to.equal(false);
  });

  it('an OLE compound file with macros or an installer class, an ISO 9660 image', () => {
    const cfb = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    expect(scan(Buffer.concat([cfb, Buffer.alloc(600), Buffer.from('_VBA_PROJECT', 'utf16le')]), 100)).to.equal(true);
    expect(scan(Buffer.concat([cfb, Buffer.alloc(600), Buffer.from('WordDocument', 'utf16le')]), 100)).to.equal(false);
    const iso = Buffer.alloc(40_000);
    iso.write('CD001', 32769, 'latin1');
    expect(scan(iso, 4096)).to.equal(true);
    expect(scan(Buffer.alloc(40_000), 4096)).to.equal(false);
  });
});
