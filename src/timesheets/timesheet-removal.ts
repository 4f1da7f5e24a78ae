import { Op, type Sequelize, type Transaction, type WhereOptions } from 'sequelize';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import { ValidationError } from '../errors/app-errors.js';
import { Timesheet } from '../models/index.js';
import { assertPeriod, MAX_YEAR } from './period.js';

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

type RemovedRow = Pick<Timesheet, 'id' | 'filePath' | 'fileSize'>;

const PURGE_BATCH = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Bulk removal of rows with their files: user deletion and the retention purge. */
export class TimesheetRemoval {
  constructor(
    private readonly sequelize: Sequelize,
    private readonly audit: AuditService,
    private readonly discardFiles: (keys: string[]) => Promise<void>,
  ) {}

  async removeAllForUser(userId: string, outer?: Transaction): Promise<RemovalResult> {
    if (!UUID.test(userId)) return { count: 0, bytes: 0 };
    const work = (transaction: Transaction) => this.deleteRows({ userId }, transaction);
    if (!outer) {
      const rows = await this.sequelize.transaction(work);
      await this.discardFiles(rows.map((r) => r.filePath));
      return summarise(rows);
    }
    const rows = await work(outer);
    // Sequelize 6 runs afterCommit hooks even when the COMMIT itself failed: remove files only if the rows are gone.
    outer.afterCommit(async () => {
      const remaining = await Timesheet.count({ where: { id: rows.map((r) => r.id) } }).catch(() => -1);
      if (remaining === 0) await this.discardFiles(rows.map((r) => r.filePath));
    });
    return summarise(rows);
  }

  async purge(options: PurgeOptions, meta: RequestMeta): Promise<RemovalResult> {
    const { year, month } = options.before;
    // "before 2101-01" is how one says "everything up to the last allowed period".
    assertPeriod(year, month, MAX_YEAR + 1);
    if (options.userId !== undefined && !UUID.test(options.userId)) {
      throw new ValidationError('Neplatný identifikátor používateľa', [{ field: 'userId', message: 'Neplatný identifikátor' }]);
    }
    const where: WhereOptions<Timesheet> = {
      ...(options.userId ? { userId: options.userId } : {}),
      [Op.or]: [{ year: { [Op.lt]: year } }, { year, month: { [Op.lt]: month } }],
    };
    const total = await Timesheet.count({ where });
    if (options.dryRun) {
      const bytes = Number((await Timesheet.sum('fileSize', { where })) ?? 0);
      return { count: total, bytes };
    }

    const done: RemovalResult = { count: 0, bytes: 0 };
    const details = { before: `${year}-${String(month).padStart(2, '0')}`, targetUserId: options.userId ?? null };
    try {
      // Batches keep transactions short and memory flat however many rows match.
      for (;;) {
        const rows = await this.sequelize.transaction((t) => this.deleteRows(where, t, PURGE_BATCH));
        if (rows.length === 0) break;
        await this.discardFiles(rows.map((r) => r.filePath));
        const batch = summarise(rows);
        done.count += batch.count;
        done.bytes += batch.bytes;
        options.onProgress?.(done.count, Math.max(total, done.count));
      }
    } catch (err) {
      await this.audit.record(
        { action: AuditActions.timesheetPurge, success: false, details: { ...details, ...done, error: (err as Error).message } },
        meta,
      );
      throw err;
    }
    await this.audit.record({ action: AuditActions.timesheetPurge, details: { ...details, ...done } }, meta);
    return done;
  }

  private async deleteRows(where: WhereOptions<Timesheet>, transaction: Transaction, limit?: number): Promise<RemovedRow[]> {
    const rows = await Timesheet.findAll({
      where,
      attributes: ['id', 'filePath', 'fileSize'],
      order: [['id', 'ASC']],
      limit,
      transaction,
      lock: transaction.LOCK.UPDATE,
    });
    if (rows.length > 0) await Timesheet.destroy({ where: { id: rows.map((r) => r.id) }, transaction });
    return rows;
  }
}

function summarise(rows: RemovedRow[]): RemovalResult {
  return { count: rows.length, bytes: rows.reduce((sum, r) => sum + r.fileSize, 0) };
}
