import { Op, type WhereOptions } from 'sequelize';
import { Timesheet } from '../models/index.js';
import type { Tx } from '../db/transactions.js';
import { offsetOf, type Page, type PageRequest } from '../shared/pagination.js';
import type { Sql } from '../db/sql.js';
import { findAndCountInTurn } from '../db/find-and-count.js';

/** Namespace of the advisory locks that count one user's uploads one at a time (the key within it is the user). */
const UPLOAD_QUOTA_LOCK = 0x71756f74;

/** The columns of a new timesheet row; the id and timestamps come from the database. */
export interface NewTimesheet {
  userId: string;
  fileName: string;
  filePath: string;
  fileType: string;
  fileSize: number;
  year: number;
  month: number;
}

export interface TimesheetFilter {
  userId?: string;
  year?: number;
  month?: number;
}

/** Rows to remove in bulk: one user's, and/or those of periods strictly before a month. */
export interface RemovalScope {
  userId?: string;
  before?: { year: number; month: number };
}

export type RemovedRow = Pick<Timesheet, 'id' | 'filePath' | 'fileSize'>;

/** One line of the monthly report: a user and what they uploaded for the month. */
export interface MonthReportRow {
  userId: string;
  username: string;
  firstName: string | null;
  lastName: string | null;
  disabled: boolean;
  files: number;
  bytes: number;
}

/** A file of the month as the export reads it: whose, under which name, where it is stored. */
export interface MonthFileRow {
  id: string;
  username: string;
  fileName: string;
  filePath: string;
  fileSize: number;
  createdAt: Date;
}

/** All data access of the timesheets area (the files themselves live in the FileStore 'timesheets', src/storage). */
export class TimesheetRepository {
  constructor(private readonly sql: Sql) {}

  /** How many timesheets a user has and how many bytes they take. */
  async usageOf(userId: string, tx?: Tx): Promise<{ files: number; bytes: number }> {
    const row = await this.sql.one<{ files: number; bytes: string }>(
      'SELECT count(*)::int AS files, coalesce(sum(file_size), 0)::bigint AS bytes FROM timesheets WHERE user_id = $userId',
      { userId },
      tx,
    );
    return { files: row?.files ?? 0, bytes: Number(row?.bytes ?? 0) };
  }

  /** Until the transaction ends, no other upload of this user is counted against the quota. */
  async lockUploadsOf(userId: string, tx: Tx): Promise<void> {
    await this.sql.execute('SELECT pg_advisory_xact_lock($namespace, hashtext($userId))', { namespace: UPLOAD_QUOTA_LOCK, userId }, tx);
  }

  create(values: NewTimesheet, tx?: Tx): Promise<Timesheet> {
    return Timesheet.create(values, { transaction: tx });
  }

  /**
   * The timesheet with this id, only if it is `ownerId`'s when an owner is given. Inside a
   * transaction the row is locked FOR UPDATE.
   */
  findById(id: string, ownerId: string | undefined, tx?: Tx): Promise<Timesheet | null> {
    const where: WhereOptions<Timesheet> = ownerId === undefined ? { id } : { id, userId: ownerId };
    return Timesheet.findOne({ where, transaction: tx, lock: tx ? tx.LOCK.UPDATE : undefined });
  }

  async page(filter: TimesheetFilter, page: PageRequest, tx?: Tx): Promise<Page<Timesheet>> {
    const where: WhereOptions<Timesheet> = {};
    if (filter.userId !== undefined) where.userId = filter.userId;
    if (filter.year !== undefined) where.year = filter.year;
    if (filter.month !== undefined) where.month = filter.month;
    const { rows, count } = await findAndCountInTurn(Timesheet, {
      where,
      // Newest period first; within a period the latest upload first; id keeps pages stable.
      order: [
        ['year', 'DESC'],
        ['month', 'DESC'],
        ['createdAt', 'DESC'],
        ['id', 'DESC'],
      ],
      limit: page.limit,
      offset: offsetOf(page),
      transaction: tx,
    });
    return { items: rows, total: count };
  }

  async destroy(timesheet: Timesheet, tx?: Tx): Promise<void> {
    await timesheet.destroy({ transaction: tx });
  }

  countInScope(scope: RemovalScope, tx?: Tx): Promise<number> {
    return Timesheet.count({ where: whereOf(scope), transaction: tx });
  }

  async bytesInScope(scope: RemovalScope, tx?: Tx): Promise<number> {
    return Number((await Timesheet.sum('fileSize', { where: whereOf(scope), transaction: tx })) ?? 0);
  }

  /**
   * Every active user with their files and bytes of the month (none: 0), and disabled users who have
   * files in it (the export contains those), by username. One grouped query over the month's index range.
   */
  async monthReport(year: number, month: number): Promise<MonthReportRow[]> {
    const rows = await this.sql.select<Omit<MonthReportRow, 'bytes'> & { bytes: string }>(
      `SELECT u.id AS "userId", u.username, u.first_name AS "firstName", u.last_name AS "lastName", u.disabled_at IS NOT NULL AS disabled,
              coalesce(t.files, 0)::int AS files, coalesce(t.bytes, 0)::bigint AS bytes
         FROM users u
         LEFT JOIN (SELECT user_id, count(*) AS files, sum(file_size) AS bytes FROM timesheets
                     WHERE year = $year AND month = $month GROUP BY user_id) t ON t.user_id = u.id
        WHERE u.disabled_at IS NULL OR t.files > 0
        ORDER BY lower(u.username), u.id`,
      { year, month },
    );
    return rows.map((r) => ({ ...r, bytes: Number(r.bytes) }));
  }

  /** The month's files in the order of the export: by username, then upload time. */
  async monthFiles(year: number, month: number): Promise<MonthFileRow[]> {
    const rows = await this.sql.select<Omit<MonthFileRow, 'fileSize'> & { fileSize: string }>(
      `SELECT t.id, u.username, t.file_name AS "fileName", t.file_path AS "filePath", t.file_size AS "fileSize", t.created_at AS "createdAt"
         FROM timesheets t JOIN users u ON u.id = t.user_id
        WHERE t.year = $year AND t.month = $month
        ORDER BY lower(u.username), t.created_at, t.id`,
      { year, month },
    );
    return rows.map((r) => ({ ...r, fileSize: Number(r.fileSize) }));
  }

  /** How many of these rows still exist. */
  countByIds(ids: string[], tx?: Tx): Promise<number> {
    return Timesheet.count({ where: { id: ids }, transaction: tx });
  }

  /**
   * Locks the rows of the scope (FOR UPDATE, in id order, at most `limit` when given), deletes them
   * and answers what they were, so that the caller can remove their files.
   */
  async deleteInScope(scope: RemovalScope, limit: number | undefined, tx: Tx): Promise<RemovedRow[]> {
    const rows = await Timesheet.findAll({
      where: whereOf(scope),
      attributes: ['id', 'filePath', 'fileSize'],
      order: [['id', 'ASC']],
      limit,
      transaction: tx,
      lock: tx.LOCK.UPDATE,
    });
    if (rows.length > 0) await Timesheet.destroy({ where: { id: rows.map((r) => r.id) }, transaction: tx });
    return rows;
  }
}

function whereOf(scope: RemovalScope): WhereOptions<Timesheet> {
  const where: WhereOptions<Timesheet> = scope.userId ? { userId: scope.userId } : {};
  if (!scope.before) return where;
  const { year, month } = scope.before;
  return { ...where, [Op.or]: [{ year: { [Op.lt]: year } }, { year, month: { [Op.lt]: month } }] };
}
