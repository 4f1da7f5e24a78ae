import path from 'node:path';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import { ConflictError, ValidationError } from '../errors/app-errors.js';
import type { Logger } from '../logging/logger.js';
import { ArchiveReader } from './archive-reader.js';
import { ArchiveSource } from './archive-source.js';
import type { BackupRepository, Catalog, MigrationStepListener } from './backup-repository.js';
import type { StorageRestorer } from './file-restorer.js';
import { STORED_FILE_KINDS } from '../storage/stored-files.js';
import { ArchiveFormatError, archiveKeyOf, EXCLUDED_TABLES, keyFingerprint, keyStatus, type ArchiveHeader } from './manifest.js';
import { loadArchive } from './restore-load.js';
import { authenticationProblem, type Authentication, type BackupKeys } from './signing.js';
import { firstOrderViolation } from './table-order.js';
import { carriedHashKeys } from './restore-hash-keys.js';
import type { PrivacyHashKeys } from '../privacy/hash-keys.js';
import { checkArchive, schemaStatus, type CheckedArchive } from './verify.js';

export interface RestoreDeps {
  repository: BackupRepository;
  files: StorageRestorer;
  audit: AuditService;
  keys: BackupKeys;
  /** Seals the hash keys an archive carried for this installation's table (ADR 0161). */
  hashKeys: Pick<PrivacyHashKeys, 'sealForStorage'>;
  logger: Logger;
}

export interface RestoreOptions {
  /** Restore although the configured key cannot read the archive's mail passwords (they must be entered again). */
  ignoreKeyMismatch: boolean;
  /** Restore an intact archive whose signature cannot be checked here (unsigned, or signed with a key not configured). */
  allowUnsigned: boolean;
  /** Asked when the target database holds rows: true replaces them, false refuses with nothing changed. */
  confirmReplace(existing: { rows: number; tables: Record<string, number> }): Promise<boolean>;
}

export interface RestoreSummary {
  file: string;
  tables: number;
  rows: number;
  files: number;
  fileBytes: number;
  replacedRows: number;
  /** The archive's schema (its newest migration) and the release that wrote it. */
  schemaVersion: string | null;
  appVersion: string;
  /** Migrations applied or reverted before the load, to bring the target to the archive's schema. */
  migrationsApplied: string[];
  migrationsReverted: string[];
  /** Migrations applied after the load: the archive's data brought to this release's schema. */
  migrationsAfterLoad: string[];
  sequences: number;
  keyStatus: 'same' | 'retired' | 'different';
  /** Hash keys of the archive's erasures kept here that this installation cannot derive itself (another encryption key's). */
  privacyHashKeys: number;
  authentication: Authentication['status'];
  durationMs: number;
}

/**
 * `crm-admin db restore` (docs/adr/0108-backups-authenticated-before-restore.md): the whole archive is
 * read and authenticated first, and every refusal (damage, signature, schema, key, a non-empty target
 * without confirmation) comes before any change. Then the schema is migrated to exactly the archive's
 * version, the tables are loaded in one transaction from a second read of the same bytes (checked
 * against the authenticated manifest again), the stored files renamed into place once the
 * database committed, the migrations this release has beyond the archive run, and with
 * CRM_STORAGE=s3 the files uploaded to the bucket last (src/backup/file-restorer.ts).
 */
export class RestoreService {
  constructor(private readonly deps: RestoreDeps) {}

  async restore(file: string, options: RestoreOptions, meta: RequestMeta): Promise<RestoreSummary> {
    const started = Date.now();
    const { repository, keys } = this.deps;
    const source = await ArchiveSource.open(file);
    let reader: ArchiveReader | undefined;
    let changing = false;
    const staged = this.deps.files.begin();
    try {
      const known = await repository.knownMigrations();
      const checked = await checkArchive(file, source.stream(), keys, known);
      const { header, auth } = this.assertRestorable(checked, options);
      this.assertSchemaKnown(header, known);
      const key = keyStatus(header, keys.encryption);
      if (key === 'different' && !options.ignoreKeyMismatch) {
        throw new ConflictError(
          `Archív bol vytvorený s iným šifrovacím kľúčom (odtlačok ${header.key.fingerprint}, nastavený ${keyFingerprint(keys.encryption.current)}): ` +
            'heslá k e-mailovým schránkam by boli nečitateľné. Nastavte pôvodný CRM_ENCRYPTION_KEY, alebo spustite s --ignore-key-mismatch. Nič sa nezmenilo.',
        );
      }
      const carried = carriedHashKeys({ header, manifest: checked.manifest!, auth, keyStatus: key }, keys);
      const keyRows = this.deps.hashKeys.sealForStorage(carried);
      const before = await repository.inspect();
      const existing = Object.entries(before.rowCounts).filter(([t, n]) => n > 0 && !(t in EXCLUDED_TABLES));
      const replacedRows = existing.reduce((n, [, c]) => n + c, 0);
      if (replacedRows > 0 && !(await options.confirmReplace({ rows: replacedRows, tables: Object.fromEntries(existing) }))) {
        throw new ConflictError(`Cieľová databáza nie je prázdna (${replacedRows} riadkov): obnova zrušená, nič sa nezmenilo`);
      }
      const knownPrefix = before.migrations.every((name, i) => known[i] === name);
      if (!knownPrefix) throw new ConflictError('Cieľová databáza má migrácie, ktoré tento program nepozná: obnovte do prázdnej databázy');

      // The second read must be the bytes just authenticated before the header drives any migration.
      reader = await ArchiveReader.open(source.stream());
      if (reader.headerSha256 !== checked.headerSha256 || !(await source.unchanged())) {
        throw new ArchiveFormatError('the archive file changed while it was being restored (written to by someone else?): nothing was changed');
      }
      if (auth.status !== 'signed')
        this.deps.logger.warn('db restore: restoring an archive that cannot be authenticated (--allow-unsigned)', { file, authentication: auth.status });
      changing = true;
      const toArchive = await repository.migrateTo(before.migrations, header.migrations, this.logStep);
      const { catalog } = await repository.inspect();
      this.assertTablesMatch(header, catalog);
      const oldFiles: string[] = [];
      const loadReader = reader;
      const loaded = await repository.inTransaction('write', async (s) => {
        if (replacedRows > 0) {
          for (const kind of STORED_FILE_KINDS) {
            if (catalog.tables.some((t) => t.name === kind.table)) oldFiles.push(...(await s.storedKeys(kind)).map((key) => archiveKeyOf(kind.store, key)));
          }
          await s.truncate(catalog.tables.map((t) => t.name).filter((t) => t !== 'schema_migrations'));
        }
        const loadedTables = header.tables.map((t) => t.name);
        await s.setUserTriggers(loadedTables, false);
        const result = await loadArchive(loadReader, s, staged, checked.manifest!);
        await s.setUserTriggers(loadedTables, true);
        // In the load's transaction: restored erasures never exist here without the key they hold under.
        if (catalog.tables.some((t) => t.name === 'privacy_hash_keys')) await s.storeHashKeys(keyRows);
        return { ...result, sequences: await s.fixSequences(loadedTables) };
      });
      await staged.commit();
      const restoredKeys = new Set(loaded.manifest.files.map((f) => f.key));
      await this.deps.files.removeAll(oldFiles.filter((k) => !restoredKeys.has(k)));
      // An archive of an earlier release: its data now goes through the migrations written since.
      const afterLoad = await repository.migrateTo(header.migrations, undefined, this.logStep);
      // With CRM_STORAGE=s3 the files go to the bucket last: a failed upload leaves them on this disk, not lost.
      await staged.publish();

      const summary: RestoreSummary = {
        file: file === '-' ? '-' : path.resolve(file),
        tables: header.tables.length,
        rows: loaded.rows,
        files: loaded.files,
        fileBytes: loaded.fileBytes,
        replacedRows,
        schemaVersion: header.migrations.at(-1) ?? null,
        appVersion: header.appVersion,
        migrationsApplied: toArchive.applied,
        migrationsReverted: toArchive.reverted,
        migrationsAfterLoad: afterLoad.applied,
        sequences: loaded.sequences,
        keyStatus: key,
        privacyHashKeys: keyRows.length,
        authentication: auth.status,
        durationMs: Date.now() - started,
      };
      await this.deps.audit.record({ action: AuditActions.dbRestore, details: { ...summary, createdAt: header.createdAt, allowUnsigned: options.allowUnsigned } }, meta);
      return summary;
    } catch (err) {
      await staged.abort();
      // Refusals before any change leave no trace in the database they refused to touch.
      if (changing) {
        await this.deps.audit
          .record({ action: AuditActions.dbRestore, success: false, details: { file, error: err instanceof Error ? err.message : String(err) } }, meta)
          .catch(() => undefined);
      }
      throw err;
    } finally {
      await reader?.close().catch(() => undefined);
      await source.close();
    }
  }

  private readonly logStep: MigrationStepListener = ({ name, direction, durationMs }) => {
    this.deps.logger.info(direction === 'up' ? 'db restore: migration applied' : 'db restore: migration reverted', { migration: name, durationMs });
  };

  /**
   * Damage, a forgery, an archive signed with a key not configured here, or (without --allow-unsigned)
   * one without a signature: refused. A key not configured is refused even with --allow-unsigned
   * (issue 52, finding 18): anyone can name a key id of their own, so it cannot be told from a forgery,
   * and its owner can configure the key (BACKUP_SIGNING_KEYS_RETIRED, CRM_ENCRYPTION_OLD_KEYS) instead.
   */
  private assertRestorable(checked: CheckedArchive, options: RestoreOptions): { header: ArchiveHeader; auth: Authentication } {
    const { report, header } = checked;
    if (!report.intact || !header || !checked.manifest || !report.authentication) {
      throw new ArchiveFormatError(`the archive is damaged or incomplete (nothing was changed):\n  - ${report.problems.join('\n  - ')}`);
    }
    const auth = report.authentication;
    if (auth.status === 'forged') throw new ArchiveFormatError(`${authenticationProblem(auth)} (nothing was changed)`);
    if (auth.status === 'unknown-key') {
      throw new ConflictError(
        `Archív sa nedá overiť: ${authenticationProblem(auth)}. Taký archív sa neobnoví ani s --allow-unsigned (to platí len pre archív bez podpisu). Nič sa nezmenilo.`,
      );
    }
    if (auth.status !== 'signed' && !options.allowUnsigned) {
      throw new ConflictError(`Archív sa nedá overiť: ${authenticationProblem(auth)}. Obnovte ho, len ak viete, odkiaľ pochádza, s --allow-unsigned. Nič sa nezmenilo.`);
    }
    return { header, auth };
  }

  private assertSchemaKnown(header: ArchiveHeader, known: string[]): void {
    const status = schemaStatus(header.migrations, known);
    if (status === 'newer' || status === 'unrelated') {
      throw new ValidationError(
        `Archív má novšiu verziu schémy (${header.migrations.at(-1)}, crm-admin ${header.appVersion}), než akú pozná tento program ` +
          `(${known.at(-1)}): obnovte ho rovnakou alebo novšou verziou crm-admin. Nič sa nezmenilo.`,
      );
    }
  }

  /** After migrating, the target's tables must hold exactly the archive's columns, and its foreign keys must agree with the archive's order. */
  private assertTablesMatch(header: ArchiveHeader, catalog: Catalog): void {
    const columns = new Map(catalog.tables.map((t) => [t.name, [...t.columns].sort().join(',')]));
    for (const table of header.tables) {
      const target = columns.get(table.name);
      if (target === undefined) throw new ValidationError(`Tabuľka ${table.name} z archívu v cieľovej databáze neexistuje`);
      if (target !== [...table.columns].sort().join(',')) throw new ValidationError(`Stĺpce tabuľky ${table.name} sa v archíve a v cieľovej databáze líšia`);
    }
    const violation = firstOrderViolation(
      header.tables.map((t) => t.name),
      catalog.edges,
    );
    if (violation) throw new ValidationError(`Poradie tabuliek v archíve nezodpovedá cudzím kľúčom (${violation.child} → ${violation.parent})`);
  }
}
