import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ArchiveFormatError } from './manifest.js';

/**
 * An archive that a restore reads twice: once to authenticate all of it, then to load it. Both reads
 * must see the same bytes, so the file is opened once and read through that descriptor (renaming or
 * replacing the path meanwhile changes nothing), and standard input is first spooled to a private
 * temporary file (mode 0600 in a 0700 directory under TMPDIR). `unchanged()` notices a file written
 * in place between the reads.
 */
export class ArchiveSource {
  private constructor(
    private readonly handle: fs.promises.FileHandle,
    private readonly stat: fs.Stats,
    private readonly spoolDir: string | undefined,
  ) {}

  static async open(file: string, stdin: Readable = process.stdin): Promise<ArchiveSource> {
    if (file === '-') {
      const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'crm-restore-'));
      try {
        const spool = path.join(dir, 'archive.tar.gz');
        await pipeline(stdin, fs.createWriteStream(spool, { flags: 'wx', mode: 0o600 }));
        const handle = await fs.promises.open(spool, 'r');
        return new ArchiveSource(handle, await handle.stat(), dir);
      } catch (err) {
        await fs.promises.rm(dir, { recursive: true, force: true });
        throw err;
      }
    }
    const handle = await fs.promises.open(file, 'r').catch((err: NodeJS.ErrnoException) => {
      throw new ArchiveFormatError(`cannot read ${file}: ${err.code ?? err.message}`);
    });
    return new ArchiveSource(handle, await handle.stat(), undefined);
  }

  /** The archive from its first byte. */
  stream(): Readable {
    return this.handle.createReadStream({ start: 0, autoClose: false });
  }

  /** False when the file was written to since it was opened (its size or change time moved). */
  async unchanged(): Promise<boolean> {
    const now = await this.handle.stat();
    return now.size === this.stat.size && now.ctimeMs === this.stat.ctimeMs && now.mtimeMs === this.stat.mtimeMs;
  }

  async close(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    if (this.spoolDir) await fs.promises.rm(this.spoolDir, { recursive: true, force: true });
  }
}
