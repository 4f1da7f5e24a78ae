import crypto from 'node:crypto';
import fs from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  assertStoreName,
  isStorageKey,
  StorageWriteError,
  StoredObjectNotFoundError,
  type FileStorage,
  type KeyedFileStore,
  type ListedObject,
  type StoredObject,
  type StoredObjectReader,
} from './file-storage.js';

/** CRM_STORAGE=local, the single-host default: one directory per store under the data directory. */
export class LocalFileStorage implements FileStorage {
  readonly kind = 'local' as const;
  private readonly stores = new Map<string, LocalDirectoryStore>();

  constructor(readonly root: string) {}

  store(name: string): LocalDirectoryStore {
    let store = this.stores.get(name);
    if (!store) this.stores.set(name, (store = new LocalDirectoryStore(assertStoreName(name), path.join(this.root, name))));
    return store;
  }

  /** Free bytes for an unprivileged writer on the root's file system (before it exists: its parent's). */
  async freeBytes(): Promise<number | undefined> {
    for (const dir of [this.root, path.dirname(this.root)]) {
      try {
        const stats = await fs.promises.statfs(dir);
        return stats.bavail * stats.bsize;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    return undefined;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** One store as plain files in one directory, named by their keys (random UUIDs), 0600. */
export class LocalDirectoryStore implements KeyedFileStore {
  constructor(
    readonly name: string,
    readonly directory: string,
  ) {}

  put(source: Readable): Promise<StoredObject> {
    const key = crypto.randomUUID();
    // 'wx': a key collision must fail loudly rather than overwrite someone's file.
    return this.write(key, this.pathOf(key), source);
  }

  /** Written under a temporary name and renamed: a reader sees the whole file or none, and a rerun overwrites. */
  async putAt(key: string, source: Readable): Promise<StoredObject> {
    const temp = path.join(this.directory, `.put-${this.checked(key)}.${crypto.randomBytes(4).toString('hex')}`);
    const stored = await this.write(key, temp, source);
    try {
      await fs.promises.rename(temp, this.pathOf(key));
    } catch (err) {
      await fs.promises.rm(temp, { force: true });
      throw new StorageWriteError(err);
    }
    return stored;
  }

  async get(key: string): Promise<StoredObjectReader> {
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

  async size(key: string): Promise<number> {
    try {
      return (await fs.promises.stat(this.pathOf(key))).size;
    } catch (err) {
      throw notFoundOr(err, key);
    }
  }

  async delete(key: string): Promise<void> {
    // A key this store never made names nothing in it: nothing to remove.
    if (!isStorageKey(key)) return;
    await fs.promises.rm(this.pathOf(key), { force: true });
  }

  async *list(): AsyncIterable<ListedObject> {
    let dir: fs.Dir;
    try {
      dir = await fs.promises.opendir(this.directory);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    // opendir streams the entries: a directory of a million files is never read into memory at once.
    for await (const entry of dir) {
      if (!entry.isFile() || !isStorageKey(entry.name)) continue;
      const stats = await fs.promises.stat(path.join(this.directory, entry.name)).catch(() => undefined);
      if (stats) yield { key: entry.name, size: stats.size, modifiedAt: stats.mtime };
    }
  }

  private async write(key: string, target: string, source: Readable): Promise<StoredObject> {
    // Cheap, and survives someone removing the directory while the server runs.
    await fs.promises.mkdir(this.directory, { recursive: true, mode: 0o700 }).catch((err: unknown) => {
      throw new StorageWriteError(err);
    });
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

  private checked(key: string): string {
    if (!isStorageKey(key)) throw new StoredObjectNotFoundError(key);
    return key;
  }

  private pathOf(key: string): string {
    return path.join(this.directory, this.checked(key));
  }
}

function notFoundOr(err: unknown, key: string): unknown {
  return (err as NodeJS.ErrnoException).code === 'ENOENT' ? new StoredObjectNotFoundError(key) : err;
}
