import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { Transactions, Tx } from '../db/transactions.js';
import { ValidationError } from '../errors/app-errors.js';
import { assertPeriod, MAX_YEAR } from './period.js';
import type { RemovalScope, RemovedRow, TimesheetRepository } from './timesheet-repository.js';

export interface PurgeOptions {
  /** Periods strictly before this month are removed. */
  before: { year: number; month: number };
  userId?: string;
  dryRun?: boolean;
  /** For a progress bar: rows removed so far and the number that matched at the start. */
  onProgress?: (done: number, total: number) => void;
}

export interface RemovalResult {
  count: number;
  bytes: number;
}

export interface TimesheetRemovalDeps {
  timesheets: TimesheetRepository;
  transactions: Transactions;
  audit: AuditService;
  /** Removes stored files; never throws (failures are logged). */
  discardFiles: (keys: string[]) => Promise<void>;
}

const PURGE_BATCH = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Bulk removal of rows with their files: user deletion and the retention purge. */
export class TimesheetRemoval {
  constructor(private readonly deps: TimesheetRemovalDeps) {}

  async removeAllForUser(userId: string, outer?: Tx): Promise<RemovalResult> {
    const { timesheets, transactions, discardFiles } = this.deps;
    if (!UUID.test(userId)) return { count: 0, bytes: 0 };
    const work = (tx: Tx) => timesheets.deleteInScope({ userId }, undefined, tx);
    if (!outer) {
      const rows = await transactions.run(work);
      await discardFiles(rows.map((r) => r.filePath));
      return summarise(rows);
    }
    const rows = await work(outer);
    // Sequelize 6 runs afterCommit hooks even when the COMMIT itself failed: remove files only if the rows are gone.
    outer.afterCommit(async () => {
      const remaining = await timesheets.countByIds(rows.map((r) => r.id)).catch(() => -1);
      if (remaining === 0) await discardFiles(rows.map((r) => r.filePath));
    });
    return summarise(rows);
  }

  async purge(options: PurgeOptions, meta: RequestMeta): Promise<RemovalResult> {
    const { timesheets, transactions, audit, discardFiles } = this.deps;
    const { year, month } = options.before;
    // "before 2101-01" is how one says "everything up to the last allowed period".
    assertPeriod(year, month, MAX_YEAR + 1);
    if (options.userId !== undefined && !UUID.test(options.userId)) {
      throw new ValidationError('Neplatný identifikátor používateľa', [{ field: 'userId', message: 'Neplatný identifikátor' }]);
    }
    const scope: RemovalScope = { userId: options.userId, before: { year, month } };
    const total = await timesheets.countInScope(scope);
    if (options.dryRun) {
      const bytes = await timesheets.bytesInScope(scope);
      return { count: total, bytes };
    }

    const done: RemovalResult = { count: 0, bytes: 0 };
    const details = { before: `${year}-${String(month).padStart(2, '0')}`, targetUserId: options.userId ?? null };
    try {
      // Batches keep transactions short and memory flat however many rows match.
      for (;;) {
        const rows = await transactions.run((tx) => timesheets.deleteInScope(scope, PURGE_BATCH, tx));
        if (rows.length === 0) break;
        await discardFiles(rows.map((r) => r.filePath));
        const batch = summarise(rows);
        done.count += batch.count;
        done.bytes += batch.bytes;
        options.onProgress?.(done.count, Math.max(total, done.count));
      }
    } catch (err) {
      await audit.record({ action: AuditActions.timesheetPurge, success: false, details: { ...details, ...done, error: (err as Error).message } }, meta);
      throw err;
    }
    await audit.record({ action: AuditActions.timesheetPurge, details: { ...details, ...done } }, meta);
    return done;
  }
}

function summarise(rows: RemovedRow[]): RemovalResult {
  return { count: rows.length, bytes: rows.reduce((sum, r) => sum + r.fileSize, 0) };
}
