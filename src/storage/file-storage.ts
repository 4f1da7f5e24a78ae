import type { Readable } from 'node:stream';

/**
 * The one interface every stored file goes through (ADR 0155): timesheets today, draft attachments
 * next. A `FileStorage` is the backend (a local directory or an S3 bucket, CRM_STORAGE); `store(name)`
 * is one kind of file in it, a flat namespace of keys the store generates. The database keeps the key;
 * the bytes live here. Services see only `FileStore`.
 */

/** One stored object: the key the database keeps (never shown to users) and its size in bytes. */
export interface StoredObject {
  key: string;
  size: number;
}

export interface StoredObjectReader {
  stream: Readable;
  /** The size of exactly the object being read, for Content-Length. */
  size: number;
}

/** What list() yields: enough to decide whether an object is an orphan old enough to sweep. */
export interface ListedObject {
  key: string;
  size: number;
  modifiedAt: Date;
}

/** One kind of stored file: put/stream-in, get/stream-out, delete, list for sweeping. */
export interface FileStore {
  /** The kind of file ('timesheets'): a directory of the data directory, a key prefix in a bucket. */
  readonly name: string;
  /**
   * Streams `source` into a new object under a generated key, in bounded memory. If the source or the
   * write fails, nothing is left behind and the promise rejects: with the source's own error when the
   * source failed, with StorageWriteError when the store refused or could not be reached.
   */
  put(source: Readable): Promise<StoredObject>;
  /** Opens an object for reading; rejects with StoredObjectNotFoundError when it does not exist. */
  get(key: string): Promise<StoredObjectReader>;
  /** Size in bytes without reading it; rejects with StoredObjectNotFoundError when it does not exist. */
  size(key: string): Promise<number>;
  /** Removes an object; removing one that is already gone is not an error (cleanup must be repeatable). */
  delete(key: string): Promise<void>;
  /** Every object of this store (in no particular order); keys this store did not generate are left out. */
  list(): AsyncIterable<ListedObject>;
}

/**
 * Writes under a key chosen by the caller: only restore and migrate-storage need it (the key is the one
 * the restored or existing rows reference). Atomic: a reader sees the whole object or none.
 */
export interface KeyedFileStore extends FileStore {
  putAt(key: string, source: Readable): Promise<StoredObject>;
}

export type StorageKind = 'local' | 's3';

/** The backend: one per process, built from CRM_STORAGE. */
export interface FileStorage {
  readonly kind: StorageKind;
  store(name: string): KeyedFileStore;
  /** Bytes still free for writing; undefined when the store cannot tell (object stores). */
  freeBytes(): Promise<number | undefined>;
  /** Releases connections (an S3 client's sockets); the local directory has nothing to release. */
  close(): Promise<void>;
}

/** Keys are generated UUIDs: anything else (a tampered row, a bug) names nothing in a store. */
const KEY_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** Store names: a directory name and a key prefix at once, so nothing that could climb out of either. */
const STORE_NAME = /^[a-z][a-z0-9-]{0,62}$/;

export function isStorageKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export function assertStoreName(name: string): string {
  if (!STORE_NAME.test(name)) throw new Error(`invalid file store name: ${name}`);
  return name;
}

export class StoredObjectNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`stored object not found: ${key}`);
    this.name = 'StoredObjectNotFoundError';
  }
}

/**
 * The store itself refused a write (disk full, read-only, permissions, a bucket that refuses or cannot
 * be reached): the server's problem, not the upload's. `cause` keeps the underlying error for the log.
 */
export class StorageWriteError extends Error {
  constructor(cause: unknown) {
    super('file storage refused the write', { cause });
    this.name = 'StorageWriteError';
  }
}
