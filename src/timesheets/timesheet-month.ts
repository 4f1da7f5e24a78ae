import { PassThrough, type Readable } from 'node:stream';
import type Yazl from 'yazl';
import { lazyRequire } from '../shared/lazy-require.js';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { Logger } from '../logging/logger.js';
import { assertPeriod } from './period.js';
import { StoredObjectNotFoundError, type FileStore } from '../storage/file-storage.js';
import type { MonthFileRow, MonthReportRow, TimesheetRepository } from './timesheet-repository.js';

/** Loaded on first use (ADR 0113): a command that never needs it does not pay for loading it. */
const yazl = lazyRequire<typeof Yazl>('yazl');

export interface MonthReport {
  year: number;
  month: number;
  users: MonthReportRow[];
  totals: { users: number; usersWithFiles: number; files: number; bytes: number };
}

export interface MonthExport {
  year: number;
  month: number;
  /** Files in the archive and their bytes (stored files only: a row whose file is missing is left out). */
  files: number;
  bytes: number;
  /** Rows of the month whose file is missing from storage (logged; not in the archive). */
  missing: number;
  /** The exact length of the archive, for Content-Length (undefined if it could not be computed). */
  size: number | undefined;
  /** The zip, produced while it is read: one stored file open at a time, whatever the month holds. */
  stream: Readable;
}

/**
 * The month's timesheets for an administrator (payroll): who uploaded how much, and every file of the
 * month as one zip with a folder per username (`<username>/<fileName>`). The archive is written while
 * it is sent: entries are stored as they are (PDF and XLSX are compressed already), each file is opened
 * only when its turn comes and streams through with backpressure, so memory stays flat for any month.
 */
export class TimesheetMonth {
  constructor(
    private readonly deps: {
      timesheets: Pick<TimesheetRepository, 'monthReport' | 'monthFiles'>;
      storage: FileStore;
      audit: AuditService;
      logger: Logger;
    },
  ) {}

  async report(year: number, month: number): Promise<MonthReport> {
    assertPeriod(year, month);
    const users = await this.deps.timesheets.monthReport(year, month);
    const totals = { users: users.length, usersWithFiles: 0, files: 0, bytes: 0 };
    for (const u of users) {
      if (u.files > 0) totals.usersWithFiles++;
      totals.files += u.files;
      totals.bytes += u.bytes;
    }
    return { year, month, users, totals };
  }

  /** Audited when the archive starts (who took the month's files, how many). */
  async export(year: number, month: number, meta: RequestMeta): Promise<MonthExport> {
    assertPeriod(year, month);
    const { storage, logger } = this.deps;
    const rows = await this.deps.timesheets.monthFiles(year, month);
    const entries: Array<MonthFileRow & { entryName: string; size: number }> = [];
    const names = new EntryNames();
    let missing = 0;
    for (const row of rows) {
      let size: number;
      try {
        // The stored size, not the row's: the archive's length is promised before a byte is sent.
        size = await storage.size(row.filePath);
      } catch (err) {
        if (!(err instanceof StoredObjectNotFoundError)) throw err;
        missing++;
        logger.error('timesheet file missing from storage (left out of the export)', { timesheetId: row.id });
        continue;
      }
      entries.push({ ...row, size, entryName: names.claim(row.username, row.fileName) });
    }
    const bytes = entries.reduce((sum, e) => sum + e.size, 0);
    await this.deps.audit.record({ action: AuditActions.timesheetsExported, details: { year, month, files: entries.length, bytes, missing } }, meta);

    const zip = new (yazl().ZipFile)();
    const out = new PassThrough();
    // An entry that cannot be read half-way (its file deleted meanwhile) ends the download with an error, never a silently short archive.
    zip.on('error', (err: Error) => out.destroy(err));
    zip.outputStream.on('error', (err: Error) => out.destroy(err));
    zip.outputStream.pipe(out);
    // A download abandoned half-way (the client went, the response was destroyed) must not leave the
    // entry being read open: yazl would wait for ever on a reader nobody drains.
    const reading = new Set<Readable>();
    out.once('close', () => {
      zip.outputStream.unpipe(out);
      for (const stream of reading) stream.destroy();
    });
    for (const entry of entries) {
      zip.addReadStreamLazy(entry.entryName, { size: entry.size, compress: false, mtime: entry.createdAt }, (callback) => {
        storage.get(entry.filePath).then(
          (reader) => {
            if (out.destroyed) {
              reader.stream.destroy();
              return;
            }
            reading.add(reader.stream);
            reader.stream.once('close', () => reading.delete(reader.stream));
            // yazl leaves a lazy source's errors to its owner: unheard, a read failure would end the process.
            reader.stream.once('error', (err) => out.destroy(err));
            callback(null, reader.stream);
          },
          (err: unknown) => callback(err, undefined as never),
        );
      });
    }
    // Every entry's size is known and stored as is, so yazl computes the archive's length at end() (synchronously).
    let size: number | undefined;
    zip.end(undefined, ((total: number) => (size = total >= 0 ? total : undefined)) as () => void);
    return { year, month, files: entries.length, bytes, missing, size, stream: out };
  }
}

/**
 * Unique entry names within the archive: two uploads of "vykaz.pdf" by one user become "vykaz.pdf"
 * and "vykaz (2).pdf". Compared without case, as the file systems they are unpacked on often do.
 */
class EntryNames {
  private readonly taken = new Set<string>();

  claim(username: string, fileName: string): string {
    const dot = fileName.lastIndexOf('.');
    const [base, ext] = dot > 0 ? [fileName.slice(0, dot), fileName.slice(dot)] : [fileName, ''];
    for (let n = 1; ; n++) {
      const name = `${username}/${n === 1 ? fileName : `${base} (${n})${ext}`}`;
      if (!this.taken.has(name.toLowerCase())) {
        this.taken.add(name.toLowerCase());
        return name;
      }
    }
  }
}
