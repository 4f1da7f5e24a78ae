import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import { ValidationError } from '../errors/app-errors.js';
import type { FileStorage, StorageKind } from './file-storage.js';
import type { OrphanSweep, SweepResult } from './orphan-sweep.js';
import { StorageMigration, type MigrationResult } from './storage-migration.js';

export interface StorageServiceDeps {
  /** The storage the service reads and writes (CRM_STORAGE). */
  storage: FileStorage;
  /** Builds the backend of a kind (the other one needs its own settings: CRM_S3_* for s3). */
  storageOfKind: (kind: StorageKind) => FileStorage;
  sweep: OrphanSweep;
  audit: AuditService;
}

export interface MigrateRequest {
  to: StorageKind;
  removeSource: boolean;
  onProgress?: (done: number) => void;
}

export interface MigrateSummary extends MigrationResult {
  from: StorageKind;
  to: StorageKind;
}

/** The operator's side of stored files: moving them between storages, and the orphan sweep. Both audited. */
export class StorageService {
  constructor(private readonly deps: StorageServiceDeps) {}

  get kind(): StorageKind {
    return this.deps.storage.kind;
  }

  async migrate(request: MigrateRequest, meta: RequestMeta): Promise<MigrateSummary> {
    const from: StorageKind = request.to === 's3' ? 'local' : 's3';
    // The running service must read the target before the source may go, or its files would vanish under it.
    if (request.removeSource && this.deps.storage.kind !== request.to) {
      throw new ValidationError(`--remove-source až keď služba číta cieľové úložisko: nastavte CRM_STORAGE=${request.to}, reštartujte službu a spustite príkaz znova`, [
        { field: 'remove-source', message: `CRM_STORAGE je ${this.deps.storage.kind}, nie ${request.to}` },
      ]);
    }
    const source = from === this.deps.storage.kind ? this.deps.storage : this.deps.storageOfKind(from);
    const target = request.to === this.deps.storage.kind ? this.deps.storage : this.deps.storageOfKind(request.to);
    try {
      const result = await new StorageMigration(source, target).migrate({ removeSource: request.removeSource, onProgress: request.onProgress });
      const summary = { from, to: request.to, ...result };
      await this.deps.audit.record({ action: AuditActions.storageMigrated, details: { ...summary } }, meta);
      return summary;
    } catch (err) {
      await this.deps.audit.record({ action: AuditActions.storageMigrated, success: false, details: { from, to: request.to, error: (err as Error).message } }, meta);
      throw err;
    } finally {
      for (const built of [source, target]) if (built !== this.deps.storage) await built.close();
    }
  }

  /** The hourly sweep of serve's maintenance (after its lock: one instance sweeps). */
  async sweep(now = new Date()): Promise<SweepResult> {
    const result = await this.deps.sweep.sweep(now);
    if (result.removed > 0) await this.deps.audit.record({ action: AuditActions.storageSwept, details: { ...result } }, { actor: 'maintenance' });
    return result;
  }
}
