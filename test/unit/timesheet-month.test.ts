import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { expect } from 'chai';
import type { AuditService } from '../../src/audit/audit-service.js';
import { createLogger } from '../../src/logging/logger.js';
import type { FileStore } from '../../src/storage/file-storage.js';
import { TimesheetMonth } from '../../src/timesheets/timesheet-month.js';
import type { MonthFileRow } from '../../src/timesheets/timesheet-repository.js';

const SIZE = 256 * 1024;
const rows: MonthFileRow[] = ['a', 'b'].map((name) => ({
  id: name,
  username: name,
  fileName: `${name}.pdf`,
  filePath: name,
  fileSize: SIZE,
  createdAt: new Date('2026-03-01T00:00:00Z'),
}));

/** Storage whose files are produced in 16 KiB chunks; `fail` makes one file's read break half-way. */
function storage(opened: Readable[], fail?: string): FileStore {
  return {
    size: () => Promise.resolve(SIZE),
    get: (key: string) => {
      let sent = 0;
      const stream = new Readable({
        read() {
          if (fail === key && sent >= SIZE / 2) {
            this.destroy(new Error('EIO: the disk went away'));
            return;
          }
          if (sent >= SIZE) return void this.push(null);
          sent += 16 * 1024;
          this.push(Buffer.alloc(16 * 1024, 0x25));
        },
      });
      opened.push(stream);
      return Promise.resolve({ stream, size: SIZE });
    },
  } as unknown as FileStore;
}

function month(files: FileStore): TimesheetMonth {
  return new TimesheetMonth({
    timesheets: { monthFiles: () => Promise.resolve(rows), monthReport: () => Promise.resolve([]) },
    storage: files,
    audit: { record: () => Promise.resolve() } as unknown as AuditService,
    logger: createLogger('error', { silent: true }),
  });
}

const meta = { actor: 'test', ip: null, userAgent: null };

describe('unit: the month export of timesheets', () => {
  it('a file whose read fails half-way fails the download, and the process goes on', async () => {
    const opened: Readable[] = [];
    const archive = await month(storage(opened, 'a')).export(2026, 3, meta);
    let bytes = 0;
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => ((bytes += chunk.length), done()) });
    const failure = await pipeline(archive.stream, sink).then(
      () => null,
      (err: Error) => err,
    );
    expect(failure?.message).to.equal('EIO: the disk went away');
    expect(bytes).to.be.below(archive.size!);
  });

  it('a download abandoned half-way destroys the file being read', async () => {
    const opened: Readable[] = [];
    const archive = await month(storage(opened)).export(2026, 3, meta);
    await new Promise<void>((resolve) => {
      archive.stream.once('data', () => {
        archive.stream.destroy();
        resolve();
      });
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(opened).to.have.length(1);
    expect(opened[0].destroyed).to.equal(true);
  });

  it('streams every file whole when nothing goes wrong, to exactly the size it announced', async () => {
    const opened: Readable[] = [];
    const archive = await month(storage(opened)).export(2026, 3, meta);
    let bytes = 0;
    await pipeline(archive.stream, new Writable({ write: (chunk: Buffer, _enc, done) => ((bytes += chunk.length), done()) }));
    expect(opened).to.have.length(2);
    expect(bytes).to.equal(archive.size);
  });
});
