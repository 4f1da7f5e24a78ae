import crypto from 'node:crypto';
import fs from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StorageWriteError, StoredObjectNotFoundError, type StoredObject, type StoredObjectReader, type TimesheetStorage } from './storage.js';

/** Keys are generated here, so anything else (a tampered row, a bug) cannot name a path outside the directory. */
const KEY_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Timesheet files as plain files in one directory (config.timesheetDir), named by random UUIDs. */
export class LocalDirectoryStorage implements TimesheetStorage {
  constructor(readonly directory: string) {}

  async save(source: Readable): Promise<StoredObject> {
    // Cheap, and survives someone removing the directory while the server runs.
    await fs.promises.mkdir(this.directory, { recursive: true, mode: 0o700 }).catch((err: unknown) => {
      throw new StorageWriteError(err);
    });
    const key = crypto.randomUUID();
    const target = this.pathOf(key);
    // 'wx': a key collision must fail loudly rather than overwrite someone's file; 0600: staff data.
    const out = fs.createWriteStream(target, { flags: 'wx', mode: 0o600 });
    // Which side failed first decides whose problem it is: the upload's (source) or the store's (out).
    // pipeline passes a failure on to the other stream with the same error object, hence "first".
    let firstFailure: { side: 'source' | 'store'; err: unknown } | undefined;
    source.once('error', (err) => (firstFailure ??= { side: 'source', err }));
    out.once('error', (err) => (firstFailure ??= { side: 'store', err }));
    try {
      await pipeline(source, out);
      return { key, size: out.bytesWritten };
    } catch (err) {
      // The descriptor may still be opening; unlinking before it closes could leave the file behind.
      if (!out.closed) {
        out.destroy();
        await once(out, 'close').catch(() => undefined);
      }
      await fs.promises.rm(target, { force: true });
      const storeFailed = firstFailure?.side === 'store' && firstFailure.err === err && typeof (err as NodeJS.ErrnoException).syscall === 'string';
      throw storeFailed ? new StorageWriteError(err) : err;
    }
  }

  async openRead(key: string): Promise<StoredObjectReader> {
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(this.pathOf(key), 'r');
    } catch (err) {
      throw notFoundOr(err, key);
    }
    try {
      const { size } = await handle.stat();
      return { stream: handle.createReadStream({ autoClose: true }), size };
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw err;
    }
  }

  async remove(key: string): Promise<void> {
    // A key this store never made names nothing in it: nothing to remove.
    if (!KEY_PATTERN.test(key)) return;
    await fs.promises.rm(this.pathOf(key), { force: true });
  }

  async size(key: string): Promise<number> {
    try {
      return (await fs.promises.stat(this.pathOf(key))).size;
    } catch (err) {
      throw notFoundOr(err, key);
    }
  }

  /** Free bytes for an unprivileged writer on the directory's file system (before the first upload: its parent's). */
  async freeBytes(): Promise<number | undefined> {
    for (const dir of [this.directory, path.dirname(this.directory)]) {
      try {
        const stats = await fs.promises.statfs(dir);
        return stats.bavail * stats.bsize;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    return undefined;
  }

  private pathOf(key: string): string {
    if (!KEY_PATTERN.test(key)) throw new StoredObjectNotFoundError(key);
    return path.join(this.directory, key);
  }
}

function notFoundOr(err: unknown, key: string): unknown {
  return (err as NodeJS.ErrnoException).code === 'ENOENT' ? new StoredObjectNotFoundError(key) : err;
}
