import type { Logger } from '../logging/logger.js';
import type { FileStorage, ListedObject } from './file-storage.js';
import type { StoredFileRepository } from './stored-file-repository.js';
import { STORED_FILE_KINDS, type StoredFileKind } from './stored-files.js';

export interface SweepResult {
  /** Objects looked at, in every store. */
  scanned: number;
  /** Objects without a row, older than the grace period, removed. */
  removed: number;
  bytes: number;
}

export interface OrphanSweepDeps {
  storage: FileStorage;
  files: StoredFileRepository;
  logger: Logger;
  /** An object younger than this is never an orphan: its row may not have committed yet (an upload in flight, a restore). */
  graceMs: number;
  kinds?: readonly StoredFileKind[];
}

const BATCH = 500;

/**
 * Removes stored objects that no row references (ADR 0155): a delete whose file removal failed, a
 * process killed between storing an upload and recording it. Rows are never touched. An object is
 * removed only when it is older than the grace period AND no row referenced it when asked, so an
 * upload still on its way to its row is safe; the files are written once and never renamed, so a row
 * that references an object always did so before the object grew old.
 */
export class OrphanSweep {
  constructor(private readonly deps: OrphanSweepDeps) {}

  async sweep(now = new Date()): Promise<SweepResult> {
    const result: SweepResult = { scanned: 0, removed: 0, bytes: 0 };
    const before = now.getTime() - this.deps.graceMs;
    for (const kind of this.deps.kinds ?? STORED_FILE_KINDS) {
      const store = this.deps.storage.store(kind.store);
      let batch: ListedObject[] = [];
      for await (const object of store.list()) {
        result.scanned++;
        if (object.modifiedAt.getTime() >= before) continue;
        batch.push(object);
        if (batch.length === BATCH) {
          await this.removeUnreferenced(kind, batch, result);
          batch = [];
        }
      }
      await this.removeUnreferenced(kind, batch, result);
    }
    if (result.removed > 0) this.deps.logger.warn('storage sweep removed files no row references', { ...result });
    return result;
  }

  private async removeUnreferenced(kind: StoredFileKind, batch: ListedObject[], result: SweepResult): Promise<void> {
    if (batch.length === 0) return;
    const referenced = await this.deps.files.referenced(
      kind,
      batch.map((o) => o.key),
    );
    const store = this.deps.storage.store(kind.store);
    for (const object of batch) {
      if (referenced.has(object.key)) continue;
      await store.delete(object.key);
      result.removed++;
      result.bytes += object.size;
    }
  }
}
