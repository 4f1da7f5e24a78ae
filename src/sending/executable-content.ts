/**
 * What an attachment may not be (docs/hardening.md, "Attachments: executables"): a program or a
 * script, by its name or by its content, also inside a ZIP archive's listing. The content checks
 * run on the stream as it passes (the CRM never holds a whole file): the first bytes for the
 * format, then patterns further on (an ISO image's volume descriptor, ZIP entry names anywhere, the
 * macro storage or installer class of an OLE compound file).
 */
import { extensionOf } from '../timesheets/file-name.js';

/** Formats (file-type's names) that are programs, whatever the file is called. */
const EXECUTABLE_CONTENT = new Set(['exe', 'dll', 'elf', 'macho', 'msi', 'cab', 'deb', 'rpm', 'apk', 'dex', 'class', 'jar', 'wasm', 'lnk', 'swf', 'crx', 'xpi', 'dmg', 'chm']);

/** Names that Windows, macOS, Linux desktops or a mail client would run or mount on a double click. */
const EXECUTABLE_NAMES = new Set([
  // Windows programs, installers, scripts and shortcuts
  'exe',
  'com',
  'scr',
  'pif',
  'bat',
  'cmd',
  'msi',
  'msp',
  'mst',
  'msix',
  'msixbundle',
  'appx',
  'appxbundle',
  'dll',
  'cpl',
  'ocx',
  'sys',
  'vbs',
  'vbe',
  'js',
  'jse',
  'wsf',
  'wsh',
  'wsc',
  'ws',
  'ps1',
  'ps1xml',
  'ps2',
  'psc1',
  'psd1',
  'psm1',
  'hta',
  'lnk',
  'url',
  'website',
  'reg',
  'scf',
  'inf',
  'sct',
  'msc',
  'gadget',
  'application',
  'appref-ms',
  'chm',
  'hlp',
  'xll',
  'xbap',
  'settingcontent-ms',
  'library-ms',
  // Disk images that mount as a drive (and hide their contents from mail filters), OneNote
  'iso',
  'img',
  'vhd',
  'vhdx',
  'dmg',
  'one',
  // Java, Unix shells, macOS apps
  'jar',
  'jnlp',
  'class',
  'sh',
  'bash',
  'csh',
  'ksh',
  'zsh',
  'command',
  'app',
  'pkg',
  'run',
  // Scriptable images
  'svg',
  'svgz',
]);

const ZIP_LOCAL_HEADER = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const ZIP_CENTRAL_HEADER = Buffer.from([0x50, 0x4b, 0x01, 0x02]);
const CFB_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
/** Directory entry names are UTF-16LE: the VBA project of a document with macros. */
const VBA_PROJECT = Buffer.from('_VBA_PROJECT', 'utf16le');
/** The root storage CLSID of a Windows Installer package ({000C1084-0000-0000-C000-000000000046}). */
const MSI_CLSID = Buffer.from([0x84, 0x10, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46]);
/** ISO 9660: "CD001" at byte 32769 (the first volume descriptor, after 16 system sectors). */
const ISO_OFFSET = 32769;
const ISO_MAGIC = Buffer.from('CD001', 'latin1');

/** A name that must not be sent: its extension, also behind trailing dots or spaces Windows ignores. */
export function isExecutableName(name: string): boolean {
  const base = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1).replace(/[.\s]+$/u, '');
  return EXECUTABLE_NAMES.has(extensionOf(base));
}

/** The first bytes (and file-type's verdict on them) say program or script. */
export function isExecutableHead(head: Buffer, detectedExt: string | undefined): boolean {
  if (detectedExt !== undefined && EXECUTABLE_CONTENT.has(detectedExt)) return true;
  const start = head.subarray(0, 8).toString('latin1');
  // A script by its interpreter line; virtual disks (VHDX header, a VHD's footer copy at the start).
  return start.startsWith('#!') || start === 'vhdxfile' || start === 'conectix';
}

/**
 * Looks at every chunk of one file after its head: answers true once the content shows a program
 * (a ZIP entry with an executable name, macros or an installer in a compound file, an ISO image).
 */
export class ContentScan {
  private offset = 0;
  private carry = Buffer.alloc(0);
  private readonly zip: boolean;
  private readonly cfb: boolean;

  constructor(head: Buffer) {
    this.cfb = head.subarray(0, 8).equals(CFB_MAGIC);
    // Not only a file that starts as a ZIP: unzip tools find an archive by its directory at the end,
    // so one behind other bytes (a self-extractor, a PDF or image with an archive appended) opens too.
    this.zip = !this.cfb;
  }

  /** Feeds the next bytes (the head first); true when they show a program. */
  push(chunk: Buffer): boolean {
    const start = this.offset;
    this.offset += chunk.length;
    if (start <= ISO_OFFSET + ISO_MAGIC.length && this.offset >= ISO_OFFSET) {
      if (this.isoAt(start, chunk)) return true;
    }
    if (!this.zip && !this.cfb) return false;
    const data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    return this.zip ? this.scanZip(data) : this.scanCfb(data);
  }

  private isoBytes: Buffer[] = [];
  private isoAt(start: number, chunk: Buffer): boolean {
    const from = Math.max(0, ISO_OFFSET - start);
    const to = Math.min(chunk.length, ISO_OFFSET + ISO_MAGIC.length - start);
    if (from < to) this.isoBytes.push(chunk.subarray(from, to));
    const got = Buffer.concat(this.isoBytes);
    return got.length === ISO_MAGIC.length && got.equals(ISO_MAGIC);
  }

  /**
   * ZIP entry names as they pass, from local file headers (signature, 26 bytes, name length, extra
   * length, name) and from the central directory (signature, 24 bytes, name length, 16 bytes, name).
   * The directory is what an unzip tool reads: its names may differ from the local headers'.
   */
  private scanZip(data: Buffer): boolean {
    let at = 0;
    for (;;) {
      const local = data.indexOf(ZIP_LOCAL_HEADER, at);
      const central = data.indexOf(ZIP_CENTRAL_HEADER, at);
      const found = local < 0 ? central : central < 0 ? local : Math.min(local, central);
      if (found < 0) {
        this.carry = Buffer.from(data.subarray(Math.max(at, data.length - (ZIP_LOCAL_HEADER.length - 1))));
        return false;
      }
      const [lengthAt, nameAt] = found === central ? [28, 46] : [26, 30];
      if (found + nameAt > data.length) {
        this.carry = Buffer.from(data.subarray(found));
        return false;
      }
      const nameLength = data.readUInt16LE(found + lengthAt);
      if (found + nameAt + nameLength > data.length) {
        this.carry = Buffer.from(data.subarray(found));
        return false;
      }
      const name = data.subarray(found + nameAt, found + nameAt + nameLength).toString('utf8');
      if (isExecutableName(name)) return true;
      at = found + 4;
    }
  }

  private scanCfb(data: Buffer): boolean {
    if (data.includes(VBA_PROJECT) || data.includes(MSI_CLSID)) return true;
    this.carry = Buffer.from(data.subarray(Math.max(0, data.length - (VBA_PROJECT.length - 1))));
    return false;
  }
}
