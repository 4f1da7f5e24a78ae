import type { Readable } from 'node:stream';

/** One stored timesheet file: the key the database keeps (never shown to users) and its size in bytes. */
export interface StoredObject {
  key: string;
  size: number;
}

export interface StoredObjectReader {
  stream: Readable;
  /** The size of exactly the object being read, for Content-Length. */
  size: number;
}

/**
 * Where timesheet files live. Services use only this interface, so several instances can later share
 * an object store instead of a local directory without touching the business rules.
 */
export interface TimesheetStorage {
  /**
   * Streams `source` into a new object under a generated key. Never buffers the whole body. If the
   * source or the write fails, nothing is left behind and the promise rejects.
   */
  save(source: Readable): Promise<StoredObject>;
  /** Opens an object for reading; rejects with StoredObjectNotFoundError when it does not exist. */
  openRead(key: string): Promise<StoredObjectReader>;
  /** Removes an object; removing one that is already gone is not an error (cleanup must be repeatable). */
  remove(key: string): Promise<void>;
  /** Size in bytes; rejects with StoredObjectNotFoundError when the object does not exist. */
  size(key: string): Promise<number>;
  /** Bytes still free for writing where objects are stored; undefined when the store cannot tell (object stores). */
  freeBytes(): Promise<number | undefined>;
}

export class StoredObjectNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`stored object not found: ${key}`);
    this.name = 'StoredObjectNotFoundError';
  }
}

/**
 * The store itself refused a write (disk full, read-only, permissions, a file where the directory
 * should be): the server's problem, not the upload's. `cause` keeps the system error for the log.
 */
export class StorageWriteError extends Error {
  constructor(cause: unknown) {
    super('timesheet storage refused the write', { cause });
    this.name = 'StorageWriteError';
  }
}
