import type CfbLibrary from 'cfb';
import type { CFB$Container } from 'cfb';
import type { Readable } from 'node:stream';
import { PayloadTooLargeError, ValidationError } from '../errors/app-errors.js';
import { extensionOf } from './file-name.js';
import type { FileStore } from '../storage/file-storage.js';
import { lazyRequire } from '../shared/lazy-require.js';

/** Loaded on first use (ADR 0113): only an upload inspects a file, never a crm-admin command. */
const cfb = lazyRequire<typeof CfbLibrary>('cfb');

/** Exactly 10 MiB is allowed; one byte more is rejected. */
export const TIMESHEET_MAX_BYTES = 10 * 1024 * 1024;

/**
 * What the `fileType` column stores and the API returns: the verified format, not the client's MIME
 * type (which is never trusted). The Content-Type of a download is derived from it.
 */
export type TimesheetFileKind = 'pdf' | 'xlsx' | 'xls';

export const CONTENT_TYPES: Record<TimesheetFileKind, string> = {
  pdf: 'application/pdf',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xls: 'application/vnd.ms-excel',
};

export const UNSUPPORTED_TYPE_MESSAGE = 'Povolené sú len súbory PDF, XLSX a XLS';
export const TOO_LARGE_MESSAGE = 'Súbor je príliš veľký (najviac 10 MB)';
const CONTENT_MISMATCH_MESSAGE = 'Obsah súboru nezodpovedá jeho prípone (povolené sú PDF, XLSX a XLS)';

const CFB_STREAM = 2;
/** Parsing a CFB container needs it whole in memory; this many at once bounds that to a few tens of MB. */
const CONCURRENT_XLS_CHECKS = 2;

export function kindForFileName(fileName: string): TimesheetFileKind | undefined {
  const extension = extensionOf(fileName);
  return extension === 'pdf' || extension === 'xlsx' || extension === 'xls' ? extension : undefined;
}

export function unsupportedTypeError(): ValidationError {
  return new ValidationError(UNSUPPORTED_TYPE_MESSAGE, [{ field: 'file', message: UNSUPPORTED_TYPE_MESSAGE }]);
}

/** Decides by content AND extension: both must name the same allowed format. */
export class FileInspector {
  private readonly xlsGate = new Gate(CONCURRENT_XLS_CHECKS);

  constructor(private readonly storage: FileStore) {}

  async inspect(key: string, fileName: string): Promise<TimesheetFileKind> {
    const expected = kindForFileName(fileName);
    if (!expected) throw unsupportedTypeError();
    const detected = await this.detectContainer(key);
    const matches = expected === 'xls' ? detected === 'cfb' && (await this.xlsGate.run(() => this.holdsWorkbook(key))) : detected === expected;
    if (!matches) {
      throw new ValidationError(CONTENT_MISMATCH_MESSAGE, [{ field: 'file', message: CONTENT_MISMATCH_MESSAGE }]);
    }
    return expected;
  }

  /** Magic bytes, and for ZIP the entries that make it an Office Open XML workbook ('xlsx', not 'docx'). */
  private async detectContainer(key: string): Promise<string | undefined> {
    const { stream } = await this.storage.get(key);
    try {
      const { fileTypeFromStream } = await import('file-type');
      return (await fileTypeFromStream(stream))?.ext;
    } catch (err) {
      // A read failure is ours (500); a parser choking on hostile bytes just means "not a format we know".
      if (typeof (err as NodeJS.ErrnoException).syscall === 'string') throw err;
      return undefined;
    } finally {
      stream.destroy();
    }
  }

  /**
   * An .xls is a CFB (OLE) container; so are .doc, .ppt and .msi. Only a root-level Workbook (BIFF8)
   * or Book (BIFF5) stream makes it a spreadsheet.
   */
  private async holdsWorkbook(key: string): Promise<boolean> {
    const { stream } = await this.storage.get(key);
    let bytes: Buffer;
    try {
      bytes = await readAll(stream, TIMESHEET_MAX_BYTES);
    } finally {
      stream.destroy();
    }
    let container: CFB$Container;
    try {
      container = cfb().read(bytes, { type: 'buffer' });
    } catch {
      return false; // not a parseable container
    }
    const entry = cfb().find(container, '/Workbook') ?? cfb().find(container, '/Book');
    return entry !== null && entry.type === CFB_STREAM && entry.size > 0;
  }
}

async function readAll(stream: Readable, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += (chunk as Buffer).length;
    if (total > max) throw new PayloadTooLargeError(TOO_LARGE_MESSAGE);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, total);
}

/** A counting semaphore: at most `limit` callers inside run() at once, the rest wait in order. */
class Gate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    while (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await work();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}
