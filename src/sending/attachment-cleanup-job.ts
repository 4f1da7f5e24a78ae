import type { Logger } from '../logging/logger.js';
import type { AttachmentFileRepository } from './attachment-files.js';
import type { FileStore } from '../storage/file-storage.js';

/** A file younger than this may still be on its way to its owner (a form being read). */
export const ORPHAN_GRACE_SECONDS = 3600;
const BATCH = 200;

/**
 * Removes kept files nobody owns any more (src/sending/attachment-files.ts): a scheduled email that
 * went, failed or was cancelled, a draft deleted or sent, a form that failed half way. Every serve
 * runs it (src/app/background-jobs.ts): removing a file twice is harmless, and the row goes only
 * while it is still an orphan.
 */
export class AttachmentCleanupJob {
  constructor(
    private readonly files: AttachmentFileRepository,
    private readonly storage: FileStore,
    private readonly logger?: Logger,
  ) {}

  async run(): Promise<{ done: number; failed: number }> {
    const round = { done: 0, failed: 0 };
    for (const orphan of await this.files.orphans(ORPHAN_GRACE_SECONDS, BATCH)) {
      try {
        // The file first: a row without its file is retried, a file without its row would be lost track of.
        await this.storage.delete(orphan.storageKey);
        if (await this.files.deleteOrphan(orphan.id)) round.done++;
      } catch (err) {
        round.failed++;
        this.logger?.warn('a kept attachment file could not be removed; tried again later', { id: orphan.id, err });
      }
    }
    return round;
  }

  backlog() {
    return this.files.orphanBacklog(ORPHAN_GRACE_SECONDS);
  }
}
