import path from 'node:path';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import { ConflictError, ValidationError } from '../errors/app-errors.js';
import type { Logger } from '../logging/logger.js';
import { ArchiveReader } from './archive-reader.js';
import type { BackupRepository, Catalog } from './backup-repository.js';
import type { LocalFileRestorer } from './file-restorer.js';
import { EXCLUDED_TABLES, keyFingerprint, keyStatus, type ArchiveHeader, type EncryptionKeys } from './manifest.js';
import { loadArchive } from './restore-load.js';
import { firstOrderViolation } from './table-order.js';
import { schemaStatus } from './verify.js';

export interface RestoreDeps {
  repository: BackupRepository;
  files: LocalFileRestorer;
  audit: AuditService;
  keys: EncryptionKeys;
  logger: Logger;
}

export interface RestoreOptions {
  /** Restore although the configured key cannot read the archive's mail passwords (they must be entered again). */
  ignoreKeyMismatch: boolean;
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
  schemaVersion: string | null;
  migrationsApplied: string[];
  migrationsReverted: string[];
  /** Migrations this program has beyond the archive's schema: `db migrate` (or the next serve) applies them. */
  migrationsPending: string[];
  sequences: number;
  keyStatus: 'same' | 'retired' | 'different';
  durationMs: number;
}

/**
 * `crm-admin db restore`: everything that can refuse is checked before anything changes (format, schema
 * version, key, an empty target or a confirmation); then the schema is migrated to exactly the archive's
 * version, the tables are loaded in one transaction, sequences moved past the restored ids, and the
 * timesheet files renamed into place once the database committed.
 */
export class RestoreService {
  constructor(private readonly deps: RestoreDeps) {}

  async restore(file: string, options: RestoreOptions, meta: RequestMeta): Promise<RestoreSummary> {
    const started = Date.now();
    const { repository, keys } = this.deps;
    const reader = await ArchiveReader.open(file);
    let changing = false;
    const staged = this.deps.files.begin();
    try {
      const { header } = reader;
      const known = await repository.knownMigrations();
      this.assertSchemaKnown(header, known);
      const key = keyStatus(header, keys);
      if (key === 'different' && !options.ignoreKeyMismatch) {
        throw new ConflictError(
          `Archív bol vytvorený s iným šifrovacím kľúčom (odtlačok ${header.key.fingerprint}, nastavený ${keyFingerprint(keys.current)}): ` +
            'heslá k e-mailovým schránkam by boli nečitateľné. Nastavte pôvodný CRM_ENCRYPTION_KEY, alebo spustite s --ignore-key-mismatch. Nič sa nezmenilo.',
        );
      }
      const before = await repository.inspect();
      const existing = Object.entries(before.rowCounts).filter(([t, n]) => n > 0 && !(t in EXCLUDED_TABLES));
      const replacedRows = existing.reduce((n, [, c]) => n + c, 0);
      if (replacedRows > 0 && !(await options.confirmReplace({ rows: replacedRows, tables: Object.fromEntries(existing) }))) {
        throw new ConflictError(`Cieľová databáza nie je prázdna (${replacedRows} riadkov): obnova zrušená, nič sa nezmenilo`);
      }
      const knownPrefix = before.migrations.every((name, i) => known[i] === name);
      if (!knownPrefix) throw new ConflictError('Cieľová databáza má migrácie, ktoré tento program nepozná: obnovte do prázdnej databázy');

      changing = true;
      const migrations = await repository.migrateTo(before.migrations, header.migrations);
      const { catalog } = await repository.inspect();
      this.assertTablesMatch(header, catalog);
      const oldFiles: string[] = [];
      const loaded = await repository.inTransaction('write', async (s) => {
        if (replacedRows > 0) {
          if (catalog.tables.some((t) => t.name === 'timesheets')) oldFiles.push(...(await s.timesheetKeys()));
          await s.truncate(catalog.tables.map((t) => t.name).filter((t) => t !== 'schema_migrations'));
        }
        const loadedTables = header.tables.map((t) => t.name);
        await s.setUserTriggers(loadedTables, false);
        const result = await loadArchive(reader, s, staged, key === 'different' ? null : keys);
        await s.setUserTriggers(loadedTables, true);
        return { ...result, sequences: await s.fixSequences(header.tables.map((t) => t.name)) };
      });
      await staged.commit();
      const restoredKeys = new Set(loaded.manifest.files.map((f) => f.key));
      await this.deps.files.removeAll(oldFiles.filter((k) => !restoredKeys.has(k)));

      const summary: RestoreSummary = {
        file: file === '-' ? '-' : path.resolve(file),
        tables: header.tables.length,
        rows: loaded.rows,
        files: loaded.files,
        fileBytes: loaded.fileBytes,
        replacedRows,
        schemaVersion: header.migrations.at(-1) ?? null,
        migrationsApplied: migrations.applied,
        migrationsReverted: migrations.reverted,
        migrationsPending: known.slice(header.migrations.length),
        sequences: loaded.sequences,
        keyStatus: key,
        durationMs: Date.now() - started,
      };
      await this.deps.audit.record({ action: AuditActions.dbRestore, details: { ...summary, createdAt: header.createdAt } }, meta);
      return summary;
    } catch (err) {
      await staged.abort();
      // Refusals before any change leave no trace in the database they refused to touch.
      if (changing) {
        await this.deps.audit.record({ action: AuditActions.dbRestore, success: false, details: { file, error: err instanceof Error ? err.message : String(err) } }, meta);
      }
      throw err;
    } finally {
      await reader.close().catch(() => undefined);
    }
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
