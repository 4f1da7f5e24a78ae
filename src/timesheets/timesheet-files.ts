import type { Readable } from 'node:stream';
import { NotFoundError, ServiceUnavailableError } from '../errors/app-errors.js';
import type { Logger } from '../logging/logger.js';
import { StorageWriteError, StoredObjectNotFoundError, type StoredObject, type StoredObjectReader, type FileStore } from '../storage/file-storage.js';

export const STORAGE_UNAVAILABLE_MESSAGE = 'Úložisko výkazov je dočasne nedostupné, skúste to neskôr';

/** The timesheet files in storage as the services see them: store failures mapped to the API's errors, cleanup that never throws. */
export class TimesheetFiles {
  constructor(
    private readonly storage: FileStore,
    private readonly logger: Logger,
  ) {}

  /**
   * Streams an upload into storage under a generated key; nothing references it until upload() commits.
   * A store that refuses the write (disk full, read-only, permissions) is an outage of ours: 503 with
   * Retry-After and the system error in the log, never the error's internals in the response.
   */
  async receive(source: Readable): Promise<StoredObject> {
    try {
      return await this.storage.put(source);
    } catch (err) {
      if (!(err instanceof StorageWriteError)) throw err;
      this.logger.error('timesheet storage refused a write', { err: err.cause });
      throw new ServiceUnavailableError(STORAGE_UNAVAILABLE_MESSAGE);
    }
  }

  /** The stored file of a timesheet row; a missing one is a 404 with a trace in the log. */
  async open(timesheet: { id: string; filePath: string }): Promise<StoredObjectReader> {
    try {
      return await this.storage.get(timesheet.filePath);
    } catch (err) {
      if (!(err instanceof StoredObjectNotFoundError)) throw err;
      // A row without its file is our inconsistency, not the user's: say so plainly and leave a trace.
      this.logger.error('timesheet file missing from storage', { timesheetId: timesheet.id });
      throw new NotFoundError('Súbor výkazu sa nenašiel');
    }
  }

  /** Removes a stored file that no row references (any more). Cleanup never masks the original error. */
  async discard(key: string): Promise<void> {
    try {
      await this.storage.delete(key);
    } catch (err) {
      this.logger.error('timesheet file cleanup failed', { err, key });
    }
  }

  async discardAll(keys: string[]): Promise<void> {
    // A handful at a time: a purge of thousands must not open thousands of descriptors at once.
    for (let i = 0; i < keys.length; i += 16) {
      await Promise.all(keys.slice(i, i + 16).map((key) => this.discard(key)));
    }
  }
}
