import path from 'node:path';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import { ValidationError } from '../errors/app-errors.js';
import type { Logger } from '../logging/logger.js';
import { StoredObjectNotFoundError, type FileStorage } from '../storage/file-storage.js';
import { STORED_FILE_KINDS } from '../storage/stored-files.js';
import { ArchiveWriter, openArchiveTarget } from './archive-writer.js';
import type { BackupRepository } from './backup-repository.js';
import {
  ARCHIVE_FORMAT,
  EXCLUDED_TABLES,
  FINGERPRINT_ALGORITHM,
  FORMAT_VERSION,
  HEADER_ENTRY,
  MANIFEST_ENTRY,
  archiveKeyOf,
  fileEntryName,
  keyFingerprint,
  type ArchiveHeader,
  type ArchiveManifest,
  type FileSum,
  type TableSum,
} from './manifest.js';
import { manifestHmac, type BackupKeys } from './signing.js';
import { wrapHashKeys } from './hash-key-wrap.js';
import type { PrivacyHashKeys } from '../privacy/hash-keys.js';
import { restoreOrder } from './table-order.js';
import { verifyArchive, type VerifyReport } from './verify.js';
import crypto from 'node:crypto';

export interface BackupDeps {
  repository: BackupRepository;
  /** Where the stored files are read from (the storage the services write: a directory or a bucket). */
  storage: FileStorage;
  audit: AuditService;
  keys: BackupKeys;
  /** The hash keys of this installation's erasures: carried in the header, wrapped (ADR 0161). */
  hashKeys: Pick<PrivacyHashKeys, 'derived' | 'opened'>;
  logger: Logger;
}

export interface BackupSummary {
  file: string;
  tables: number;
  rows: number;
  files: number;
  fileBytes: number;
  missingFiles: string[];
  /** Size of the archive (compressed). */
  bytes: number;
  durationMs: number;
  schemaVersion: string | null;
  keyFingerprint: string;
}

/**
 * `crm-admin db backup`: every table in one consistent snapshot (REPEATABLE READ READ ONLY, so the
 * service keeps running), then the stored files the snapshot's rows reference (every kind of
 * src/storage/stored-files.ts, from the configured storage: local or S3), streamed into one
 * archive with the checksums last (see manifest.ts for the layout).
 */
export class BackupService {
  constructor(private readonly deps: BackupDeps) {}

  /** `partBytes`: where table data is cut into parts (PART_BYTES; smaller only to exercise the cutting in tests). */
  async backup(file: string, options: { appVersion: string; partBytes?: number }, meta: RequestMeta): Promise<BackupSummary> {
    const started = Date.now();
    const createdAt = new Date();
    const { repository, storage, keys } = this.deps;
    const target = await openArchiveTarget(file);
    const writer = new ArchiveWriter(target, createdAt, options.partBytes);
    try {
      const snapshot = await repository.inTransaction('snapshot', async (s) => {
        const migrations = await s.appliedMigrations();
        if (migrations.length === 0) throw new ValidationError('Databáza nemá schému (žiadne migrácie): nie je čo zálohovať');
        const catalog = await s.catalog();
        const included = catalog.tables.filter((t) => !(t.name in EXCLUDED_TABLES));
        const order = restoreOrder(
          included.map((t) => t.name),
          catalog.edges,
        );
        const byName = new Map(included.map((t) => [t.name, t]));
        // Every key an erasure here may be hashed under, the carried ones read in the snapshot (a database of a release before 0076 has none).
        const carried = catalog.tables.some((t) => t.name === 'privacy_hash_keys') ? await s.sealedHashKeys() : [];
        const hashKeys = [...this.deps.hashKeys.derived(), ...this.deps.hashKeys.opened(carried)];
        const header: ArchiveHeader = {
          format: ARCHIVE_FORMAT,
          formatVersion: FORMAT_VERSION,
          createdAt: createdAt.toISOString(),
          appVersion: options.appVersion,
          migrations,
          key: { algorithm: FINGERPRINT_ALGORITHM, fingerprint: keyFingerprint(keys.encryption.current), oldFingerprints: keys.encryption.old.map(keyFingerprint) },
          copyFormat: 'text',
          tables: order.map((name) => ({ name, columns: byName.get(name)!.columns })),
          excludedTables: EXCLUDED_TABLES,
          sourceServerVersion: await s.serverVersion(),
          privacyHashKeys: wrapHashKeys(hashKeys, keys.signing),
        };
        const headerText = Buffer.from(JSON.stringify(header, null, 2));
        await writer.addBuffer(HEADER_ENTRY, headerText);
        const tables: TableSum[] = [];
        for (const [index, spec] of header.tables.entries()) tables.push(await writer.addTable(index, spec.name, s.copyOut(spec.name, spec.columns)));
        const fileKeys: Array<{ store: string; key: string }> = [];
        for (const kind of STORED_FILE_KINDS) {
          if (byName.has(kind.table)) for (const key of await s.storedKeys(kind)) fileKeys.push({ store: kind.store, key });
        }
        return { header, headerSha256: sha256(headerText), tables, fileKeys };
      });
      // Files are immutable once referenced, so reading them after the snapshot commits is consistent;
      // one deleted meanwhile (a purge) is reported, not fatal.
      const files: FileSum[] = [];
      const missingFiles: string[] = [];
      for (const { store, key } of snapshot.fileKeys) {
        const archiveKey = archiveKeyOf(store, key);
        let opened;
        try {
          opened = await storage.store(store).get(key);
        } catch (err) {
          if (!(err instanceof StoredObjectNotFoundError)) throw err;
          missingFiles.push(archiveKey);
          this.deps.logger.warn('backup: a stored file referenced by the database is missing', { store, key });
          continue;
        }
        files.push(await writer.addFile(fileEntryName(archiveKey), archiveKey, opened.size, opened.stream));
      }
      const { header } = snapshot;
      const manifest: ArchiveManifest = {
        format: header.format,
        formatVersion: header.formatVersion,
        createdAt: header.createdAt,
        completedAt: new Date().toISOString(),
        appVersion: header.appVersion,
        migrations: header.migrations,
        key: header.key,
        headerSha256: snapshot.headerSha256,
        tables: snapshot.tables,
        files,
        missingFiles,
        signingKey: keys.signing.fingerprint,
      };
      manifest.hmac = manifestHmac(manifest, keys.signing);
      await writer.addBuffer(MANIFEST_ENTRY, Buffer.from(JSON.stringify(manifest, null, 2)));
      await writer.finish();
      await target.commit();
      const summary: BackupSummary = {
        file: file === '-' ? '-' : path.resolve(file),
        tables: snapshot.tables.length,
        rows: snapshot.tables.reduce((n, t) => n + t.rows, 0),
        files: files.length,
        fileBytes: files.reduce((n, f) => n + f.size, 0),
        missingFiles,
        bytes: writer.bytes,
        durationMs: Date.now() - started,
        schemaVersion: header.migrations.at(-1) ?? null,
        keyFingerprint: header.key.fingerprint,
      };
      await this.deps.audit.record({ action: AuditActions.dbBackup, details: { ...summary, missingFiles: missingFiles.length } }, meta);
      return summary;
    } catch (err) {
      writer.destroy(err instanceof Error ? err : new Error(String(err)));
      await target.abort();
      await this.deps.audit.record({ action: AuditActions.dbBackup, success: false, details: { file, error: err instanceof Error ? err.message : String(err) } }, meta);
      throw err;
    }
  }

  /** `db backup --verify`: every checksum and count against the manifest, and the key against the configured one. */
  async verify(file: string): Promise<VerifyReport> {
    return verifyArchive(file, this.deps.keys, await this.deps.repository.knownMigrations());
  }
}

function sha256(data: Buffer): string {
  return crypto.createHash('sha256').update(data).digest('hex');
}
