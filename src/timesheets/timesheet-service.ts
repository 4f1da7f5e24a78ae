import type { Readable } from 'node:stream';
import type { PageRequest } from '../shared/pagination.js';
import { ForeignKeyConstraintError, type Sequelize, type Transaction, type WhereOptions } from 'sequelize';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import { AuthenticationError, ForbiddenError, NotFoundError, PayloadTooLargeError, ServiceUnavailableError, ValidationError } from '../errors/app-errors.js';
import type { Logger } from '../logging/logger.js';
import { Timesheet, type Role } from '../models/index.js';
import { CONTENT_TYPES, FileInspector, TIMESHEET_MAX_BYTES, TOO_LARGE_MESSAGE, type TimesheetFileKind } from './file-inspector.js';
import { sanitiseFileName } from './file-name.js';
import { assertPeriod } from './period.js';
import { TimesheetRemoval, type PurgeOptions, type RemovalResult } from './timesheet-removal.js';
import { StorageWriteError, StoredObjectNotFoundError, type StoredObject, type TimesheetStorage } from './storage.js';

export type { PurgeOptions, RemovalResult } from './timesheet-removal.js';

/** Who is asking; the role is the one stored now (design: access follows the authenticated user's role). */
export interface TimesheetActor {
  userId: string;
  username?: string | null;
  role: Role;
}

/** A file already streamed into storage by receive(), with the name the client gave it. */
export interface ReceivedFile extends StoredObject {
  originalName: string;
}

export interface UploadRequest {
  file: ReceivedFile;
  year: number;
  month: number;
}

export interface TimesheetFilter {
  userId?: string;
  year?: number;
  month?: number;
}

export interface TimesheetDownload {
  timesheet: Timesheet;
  stream: Readable;
  size: number;
  contentType: string;
}

const NOT_FOUND_MESSAGE = 'Výkaz neexistuje';
export const STORAGE_UNAVAILABLE_MESSAGE = 'Úložisko výkazov je dočasne nedostupné, skúste to neskôr';

export class TimesheetService {
  private readonly inspector: FileInspector;
  private readonly removal: TimesheetRemoval;

  constructor(
    private readonly sequelize: Sequelize,
    private readonly storage: TimesheetStorage,
    private readonly audit: AuditService,
    private readonly logger: Logger,
  ) {
    this.inspector = new FileInspector(storage);
    this.removal = new TimesheetRemoval(sequelize, audit, (keys) => this.discardAll(keys));
  }

  /**
   * Streams an upload into storage under a generated key; nothing references it until upload() commits.
   * A store that refuses the write (disk full, read-only, permissions) is an outage of ours: 503 with
   * Retry-After and the system error in the log, never the error's internals in the response.
   */
  async receive(source: Readable): Promise<StoredObject> {
    try {
      return await this.storage.save(source);
    } catch (err) {
      if (!(err instanceof StorageWriteError)) throw err;
      this.logger.error('timesheet storage refused a write', { err: err.cause });
      throw new ServiceUnavailableError(STORAGE_UNAVAILABLE_MESSAGE);
    }
  }

  /** Removes a stored file that no row references (any more). Cleanup never masks the original error. */
  async discard(key: string): Promise<void> {
    try {
      await this.storage.remove(key);
    } catch (err) {
      this.logger.error('timesheet file cleanup failed', { err, key });
    }
  }

  /**
   * Checks a received file and records it. Whatever fails here (the file, the period, the database),
   * the stored file is removed before the error reaches the caller.
   */
  async upload(actor: TimesheetActor, request: UploadRequest, meta: RequestMeta): Promise<Timesheet> {
    const { file, year, month } = request;
    const fileName = sanitiseFileName(file.originalName);
    try {
      assertPeriod(year, month);
      const fileType = await this.checkFile(file, fileName);
      return await this.sequelize.transaction(async (transaction) => {
        const timesheet = await Timesheet.create(
          { userId: actor.userId, fileName, filePath: file.key, fileType, fileSize: file.size, year, month },
          { transaction },
        );
        await this.audit.record(
          {
            action: AuditActions.timesheetUploaded,
            userId: actor.userId,
            username: actor.username ?? null,
            details: { timesheetId: timesheet.id, fileName, fileType, fileSize: file.size, year, month },
          },
          meta,
          transaction,
        );
        return timesheet;
      });
    } catch (err) {
      await this.discard(file.key);
      if (err instanceof ValidationError || err instanceof PayloadTooLargeError) {
        // A rejected file (e.g. an executable named .pdf) is worth a trace; the request itself already failed.
        await this.audit.record(
          {
            action: AuditActions.timesheetUploaded,
            userId: actor.userId,
            username: actor.username ?? null,
            success: false,
            details: { fileName, fileSize: file.size, year, month, reason: err.message },
          },
          meta,
        );
      }
      // The uploader's user was deleted while the file streamed in: the session they used is gone too.
      if (err instanceof ForeignKeyConstraintError) throw new AuthenticationError();
      throw err;
    }
  }

  listOwn(actor: TimesheetActor, filter: Omit<TimesheetFilter, 'userId'>, page: PageRequest) {
    return this.list({ ...filter, userId: actor.userId }, page);
  }

  listAll(actor: TimesheetActor, filter: TimesheetFilter, page: PageRequest) {
    if (actor.role !== 'admin') throw new ForbiddenError();
    return this.list(filter, page);
  }

  /** A member reaches only own timesheets; anyone else's id is "not found", never "forbidden" (no existence leak). */
  async findAccessible(actor: TimesheetActor, id: string, transaction?: Transaction): Promise<Timesheet> {
    const where: WhereOptions<Timesheet> = actor.role === 'admin' ? { id } : { id, userId: actor.userId };
    const timesheet = await Timesheet.findOne({ where, transaction, lock: transaction ? transaction.LOCK.UPDATE : undefined });
    if (!timesheet) throw new NotFoundError(NOT_FOUND_MESSAGE);
    return timesheet;
  }

  async openDownload(actor: TimesheetActor, id: string): Promise<TimesheetDownload> {
    const timesheet = await this.findAccessible(actor, id);
    try {
      const { stream, size } = await this.storage.openRead(timesheet.filePath);
      const contentType = CONTENT_TYPES[timesheet.fileType as TimesheetFileKind] ?? 'application/octet-stream';
      return { timesheet, stream, size, contentType };
    } catch (err) {
      if (!(err instanceof StoredObjectNotFoundError)) throw err;
      // A row without its file is our inconsistency, not the user's: say so plainly and leave a trace.
      this.logger.error('timesheet file missing from storage', { timesheetId: timesheet.id });
      throw new NotFoundError('Súbor výkazu sa nenašiel');
    }
  }

  /** Row and audit record in one transaction; the file goes once the row is surely gone. */
  async delete(actor: TimesheetActor, id: string, meta: RequestMeta): Promise<void> {
    const removed = await this.sequelize.transaction(async (transaction) => {
      const timesheet = await this.findAccessible(actor, id, transaction);
      await timesheet.destroy({ transaction });
      await this.audit.record(
        {
          action: AuditActions.timesheetDeleted,
          userId: timesheet.userId,
          details: {
            timesheetId: timesheet.id,
            fileName: timesheet.fileName,
            fileSize: timesheet.fileSize,
            year: timesheet.year,
            month: timesheet.month,
            deletedBy: actor.userId,
          },
        },
        meta,
        transaction,
      );
      return timesheet;
    });
    await this.discard(removed.filePath);
  }

  /**
   * Every timesheet of a user, rows and files (for the admin user deletion). Pass the deletion's
   * transaction and call this BEFORE deleting the user (the cascade would drop the rows, and with them
   * the keys of the files); the files are removed only once that transaction has committed.
   */
  removeAllForUser(userId: string, options: { transaction?: Transaction } = {}): Promise<RemovalResult> {
    return this.removal.removeAllForUser(userId, options.transaction);
  }

  /** Rows and files of periods before `before` (crm-admin timesheets purge); audited unless a dry run. */
  purge(options: PurgeOptions, meta: RequestMeta): Promise<RemovalResult> {
    return this.removal.purge(options, meta);
  }

  private async list(filter: TimesheetFilter, { page, limit }: PageRequest) {
    const where: WhereOptions<Timesheet> = {};
    if (filter.userId !== undefined) where.userId = filter.userId;
    if (filter.year !== undefined) where.year = filter.year;
    if (filter.month !== undefined) where.month = filter.month;
    const { rows, count } = await Timesheet.findAndCountAll({
      where,
      // Newest period first; within a period the latest upload first; id keeps pages stable.
      order: [['year', 'DESC'], ['month', 'DESC'], ['createdAt', 'DESC'], ['id', 'DESC']],
      limit,
      offset: (page - 1) * limit,
    });
    return { items: rows, total: count };
  }

  private async checkFile(file: ReceivedFile, fileName: string): Promise<TimesheetFileKind> {
    if (file.size > TIMESHEET_MAX_BYTES) throw new PayloadTooLargeError(TOO_LARGE_MESSAGE);
    if (file.size === 0) throw new ValidationError('Súbor je prázdny', [{ field: 'file', message: 'Súbor je prázdny' }]);
    return this.inspector.inspect(file.key, fileName);
  }

  private async discardAll(keys: string[]): Promise<void> {
    // A handful at a time: a purge of thousands must not open thousands of descriptors at once.
    for (let i = 0; i < keys.length; i += 16) {
      await Promise.all(keys.slice(i, i + 16).map((key) => this.discard(key)));
    }
  }
}
