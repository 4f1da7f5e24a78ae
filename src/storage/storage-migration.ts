import type { FileStorage, KeyedFileStore, ListedObject } from './file-storage.js';
import { StoredObjectNotFoundError } from './file-storage.js';
import { STORED_FILE_KINDS, type StoredFileKind } from './stored-files.js';

export interface MigrationResult {
  /** Copied to the target in this run. */
  copied: number;
  /** Already in the target with the same size (an earlier, interrupted run copied them). */
  skipped: number;
  /** Removed from the source after their copy was confirmed (`removeSource`). */
  removed: number;
  bytes: number;
}

export interface MigrationOptions {
  /** Remove each source object once the target holds it: only when the service already reads the target. */
  removeSource: boolean;
  onProgress?: (done: number) => void;
}

/** Objects copied at once: enough to hide a bucket's latency, few enough for a small host. */
const PARALLEL = 4;

/**
 * `crm-admin timesheets migrate-storage --to s3|local` (ADR 0155): copies every stored object of every
 * kind from one storage to the other under the same key, so the rows stay as they are. Resumable and
 * idempotent: an object whose copy is in the target already (same size: writes are atomic on both
 * sides, so a copy is whole or absent) is skipped, and a rerun after an interruption copies what is
 * left. The source is removed per object and only after its copy was confirmed.
 */
export class StorageMigration {
  constructor(
    private readonly from: FileStorage,
    private readonly to: FileStorage,
    private readonly kinds: readonly StoredFileKind[] = STORED_FILE_KINDS,
  ) {}

  async migrate(options: MigrationOptions): Promise<MigrationResult> {
    const result: MigrationResult = { copied: 0, skipped: 0, removed: 0, bytes: 0 };
    for (const kind of this.kinds) {
      const source = this.from.store(kind.store);
      const target = this.to.store(kind.store);
      const running = new Set<Promise<void>>();
      for await (const object of source.list()) {
        const step: Promise<void> = this.move(source, target, object, options, result).finally(() => running.delete(step));
        running.add(step);
        if (running.size >= PARALLEL) await Promise.race(running);
        options.onProgress?.(result.copied + result.skipped);
      }
      await Promise.all(running);
    }
    return result;
  }

  private async move(source: KeyedFileStore, target: KeyedFileStore, object: ListedObject, options: MigrationOptions, result: MigrationResult): Promise<void> {
    if ((await sizeOrUndefined(target, object.key)) === object.size) {
      result.skipped++;
    } else {
      const opened = await source.get(object.key);
      const stored = await target.putAt(object.key, opened.stream);
      // The copy must be the object, whole: a source that changed or a short read stops the run here.
      if (stored.size !== opened.size || (await target.size(object.key)) !== opened.size) {
        throw new Error(`copy of ${source.name}/${object.key} has ${stored.size} bytes, the source ${opened.size}`);
      }
      result.copied++;
      result.bytes += stored.size;
    }
    if (options.removeSource) {
      await source.delete(object.key);
      result.removed++;
    }
  }
}

async function sizeOrUndefined(store: KeyedFileStore, key: string): Promise<number | undefined> {
  try {
    return await store.size(key);
  } catch (err) {
    if (err instanceof StoredObjectNotFoundError) return undefined;
    throw err;
  }
}
