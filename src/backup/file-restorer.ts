import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DigestStream, type Digest } from './digest.js';
import { ArchiveFormatError, isSafeFileKey } from './manifest.js';

/** Files written during one restore: under temporary names until the database commits, then renamed. */
export interface StagedFiles {
  /** Streams one file to a temporary name; answers its digest (checked against the manifest by the caller). */
  stage(key: string, source: AsyncIterable<Buffer>): Promise<Digest>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/**
 * Restores timesheet files into the local timesheet directory under their original storage keys
 * (the restored rows reference them), which the TimesheetStorage interface deliberately cannot do:
 * its save() always generates a new key.
 */
export class LocalFileRestorer {
  constructor(readonly directory: string) {}

  begin(): StagedFiles {
    const staged: { temp: string; final: string }[] = [];
    const directory = this.directory;
    return {
      async stage(key, source) {
        if (!isSafeFileKey(key)) throw new ArchiveFormatError(`file entry "${key}" is not a storage key`);
        await fs.promises.mkdir(directory, { recursive: true, mode: 0o700 });
        const temp = path.join(directory, `.restore-${key}.${crypto.randomBytes(4).toString('hex')}`);
        staged.push({ temp, final: path.join(directory, key) });
        const tap = new DigestStream();
        await pipeline(Readable.from(source), tap, fs.createWriteStream(temp, { flags: 'wx', mode: 0o600 }));
        return tap.digest;
      },
      async commit() {
        for (const { temp, final } of staged) await fs.promises.rename(temp, final);
        staged.length = 0;
      },
      async abort() {
        await Promise.all(staged.map(({ temp }) => fs.promises.rm(temp, { force: true })));
        staged.length = 0;
      },
    };
  }

  /** Removes files the replaced database referenced and the restored one does not. */
  async removeAll(keys: string[]): Promise<void> {
    for (const key of keys) if (isSafeFileKey(key)) await fs.promises.rm(path.join(this.directory, key), { force: true });
  }
}
