import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import { isForeignKeyViolation } from '../db/db-errors.js';
import type { Transactions } from '../db/transactions.js';
import { AuthenticationError, PayloadTooLargeError, QuotaExceededError, ValidationError } from '../errors/app-errors.js';
import type { Timesheet } from '../models/index.js';
import { TIMESHEET_MAX_BYTES, TOO_LARGE_MESSAGE, type FileInspector, type TimesheetFileKind } from './file-inspector.js';
import { sanitiseFileName } from './file-name.js';
import { assertPeriod } from './period.js';
import type { StoredObject } from '../storage/file-storage.js';
import type { TimesheetFiles } from './timesheet-files.js';
import type { TimesheetRepository } from './timesheet-repository.js';
import type { UploadAllowance } from './upload-allowance.js';

/** A file already streamed into storage by receive(), with the name the client gave it. */
export interface ReceivedFile extends StoredObject {
  originalName: string;
}

export interface UploadRequest {
  file: ReceivedFile;
  year: number;
  month: number;
}

/** Who uploads: the timesheet's owner. */
export interface Uploader {
  userId: string;
  username?: string | null;
}

export interface TimesheetUploadDeps {
  timesheets: TimesheetRepository;
  transactions: Transactions;
  files: TimesheetFiles;
  inspector: FileInspector;
  audit: AuditService;
  allowance: UploadAllowance;
}

/** Recording a received file: size, period and content checks, then the row and its audit record. */
export class TimesheetUpload {
  constructor(private readonly deps: TimesheetUploadDeps) {}

  /**
   * Checks a received file and records it. Whatever fails here (the file, the period, the database),
   * the stored file is removed before the error reaches the caller.
   */
  async upload(actor: Uploader, request: UploadRequest, meta: RequestMeta): Promise<Timesheet> {
    const { timesheets, transactions, files, audit, allowance } = this.deps;
    const { file, year, month } = request;
    const fileName = sanitiseFileName(file.originalName);
    try {
      assertPeriod(year, month);
      const fileType = await this.checkFile(file, fileName);
      return await transactions.run(async (tx) => {
        // Exact, with the stored size, one upload of this user at a time (parallel uploads passed admit together).
        await allowance.assertWithinQuota(actor.userId, file.size, tx);
        const timesheet = await timesheets.create({ userId: actor.userId, fileName, filePath: file.key, fileType, fileSize: file.size, year, month }, tx);
        await audit.record(
          {
            action: AuditActions.timesheetUploaded,
            userId: actor.userId,
            username: actor.username ?? null,
            details: { timesheetId: timesheet.id, fileName, fileType, fileSize: file.size, year, month },
          },
          meta,
          tx,
        );
        return timesheet;
      });
    } catch (err) {
      await files.discard(file.key);
      if (err instanceof ValidationError || err instanceof PayloadTooLargeError || err instanceof QuotaExceededError) {
        // A rejected file (e.g. an executable named .pdf) is worth a trace; the request itself already failed.
        await audit.record(
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
      if (isForeignKeyViolation(err)) throw new AuthenticationError();
      throw err;
    }
  }

  private async checkFile(file: ReceivedFile, fileName: string): Promise<TimesheetFileKind> {
    if (file.size > TIMESHEET_MAX_BYTES) throw new PayloadTooLargeError(TOO_LARGE_MESSAGE);
    if (file.size === 0) throw new ValidationError('Súbor je prázdny', [{ field: 'file', message: 'Súbor je prázdny' }]);
    return this.deps.inspector.inspect(file.key, fileName);
  }
}
