import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FileStorage } from '../storage/file-storage.js';
import { DigestStream, type Digest } from './digest.js';
import { ArchiveFormatError, parseArchiveKey } from './manifest.js';

/** Files written during one restore: under temporary names until the database commits, then put in place. */
export interface StagedFiles {
  /** Streams one file (named by its archive key) to a temporary name; answers its digest (checked against the manifest by the caller). */
  stage(archiveKey: string, source: AsyncIterable<Buffer>): Promise<Digest>;
  /** Renames the staged files into the local stores' directories: right after the database commits. */
  commit(): Promise<void>;
  /** With CRM_STORAGE=s3: uploads what commit() placed, then removes it locally (last, after the migrations). */
  publish(): Promise<void>;
  abort(): Promise<void>;
}

/** The database is restored but some files did not reach the object store: they wait in the local directory. */
export class FilesPendingUploadError extends Error {
  constructor(
    readonly pending: number,
    readonly directory: string,
    cause: unknown,
  ) {
    super(
      `Databáza je obnovená, ale ${pending} súborov sa nepodarilo nahrať do úložiska S3 (${cause instanceof Error ? cause.message : String(cause)}). ` +
        `Čakajú v ${directory}; dokončite presun príkazom crm-admin timesheets migrate-storage --to s3 --remove-source.`,
      { cause },
    );
    this.name = 'FilesPendingUploadError';
  }
}

/**
 * Puts restored files where the configured storage keeps them, under their original keys (the restored
 * rows reference them). Every file is first staged on the local disk under a temporary name while the
 * database loads (no network call inside the restore's transaction), renamed into the store's local
 * directory once the database committed and, with CRM_STORAGE=s3, then uploaded to the bucket and
 * removed locally. An upload that fails leaves the file in the local directory, where
 * `migrate-storage --to s3` finds it: nothing the restored rows reference is lost.
 */
export class StorageRestorer {
  constructor(
    private readonly storage: FileStorage,
    /** The data directory: the local stores, and the staging area of an S3 restore. */
    private readonly dataDir: string,
  ) {}

  begin(): StagedFiles {
    const staged: Array<{ temp: string; final: string; store: string; key: string }> = [];
    const placed: typeof staged = [];
    const { dataDir, storage } = this;
    return {
      async stage(archiveKey, source) {
        const named = parseArchiveKey(archiveKey);
        if (!named) throw new ArchiveFormatError(`file entry "${archiveKey}" is not a storage key`);
        const directory = path.join(dataDir, named.store);
        await fs.promises.mkdir(directory, { recursive: true, mode: 0o700 });
        const temp = path.join(directory, `.restore-${named.key}.${crypto.randomBytes(4).toString('hex')}`);
        staged.push({ temp, final: path.join(directory, named.key), ...named });
        const tap = new DigestStream();
        await pipeline(Readable.from(source), tap, fs.createWriteStream(temp, { flags: 'wx', mode: 0o600 }));
        return tap.digest;
      },
      async commit() {
        for (const file of staged.splice(0)) {
          await fs.promises.rename(file.temp, file.final);
          placed.push(file);
        }
      },
      async publish() {
        if (storage.kind === 'local') return;
        const files = placed.splice(0);
        let uploaded = 0;
        try {
          for (const { final, store, key } of files) {
            await storage.store(store).putAt(key, fs.createReadStream(final));
            await fs.promises.rm(final, { force: true });
            uploaded++;
          }
        } catch (err) {
          throw new FilesPendingUploadError(files.length - uploaded, dataDir, err);
        }
      },
      async abort() {
        await Promise.all(staged.map(({ temp }) => fs.promises.rm(temp, { force: true })));
        staged.length = 0;
      },
    };
  }

  /** Removes files the replaced database referenced and the restored one does not (archive keys). */
  async removeAll(archiveKeys: string[]): Promise<void> {
    for (const archiveKey of archiveKeys) {
      const named = parseArchiveKey(archiveKey);
      if (named) await this.storage.store(named.store).delete(named.key);
    }
  }
}
