import type { Readable } from 'node:stream';
import type { Page, PageRequest } from '../shared/pagination.js';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { Transactions, Tx } from '../db/transactions.js';
import { ForbiddenError, NotFoundError } from '../errors/app-errors.js';
import type { Logger } from '../logging/logger.js';
import type { ThrottleCounter } from '../auth/throttle-repository.js';
import type { UploadLimits } from '../config/config.js';
import type { Role, Timesheet } from '../models/index.js';
import { CONTENT_TYPES, FileInspector, type TimesheetFileKind } from './file-inspector.js';
import type { FileStore, StoredObject } from '../storage/file-storage.js';
import { TimesheetFiles } from './timesheet-files.js';
import { TimesheetRemoval, type PurgeOptions, type RemovalResult } from './timesheet-removal.js';
import type { TimesheetFilter, TimesheetRepository } from './timesheet-repository.js';
import { TimesheetUpload, type UploadRequest } from './timesheet-upload.js';
import { UploadAllowance } from './upload-allowance.js';

export type { PurgeOptions, RemovalResult } from './timesheet-removal.js';
export type { TimesheetFilter } from './timesheet-repository.js';
export type { UploadRequest } from './timesheet-upload.js';
export { STORAGE_UNAVAILABLE_MESSAGE } from './timesheet-files.js';

/** Who is asking; the role is the one stored now (design: access follows the authenticated user's role). */
export interface TimesheetActor {
  userId: string;
  username?: string | null;
  role: Role;
}

export interface TimesheetDownload {
  timesheet: Timesheet;
  stream: Readable;
  size: number;
  contentType: string;
}

export interface TimesheetServiceDeps {
  timesheets: TimesheetRepository;
  transactions: Transactions;
  /** The timesheets' store (FileStorage.store('timesheets')). */
  storage: FileStore;
  /** Free bytes where files are stored (FileStorage.freeBytes): uploads stop at the reserve. */
  freeSpace: () => Promise<number | undefined>;
  audit: AuditService;
  logger: Logger;
  /** Quota, rate and free-space reserve of uploads (upload-allowance.ts). */
  uploadLimits: UploadLimits;
  /** Counter of successful uploads per user, `uploadLimits.uploadsPerHour` per hour. */
  uploadRate: ThrottleCounter;
}

const NOT_FOUND_MESSAGE = 'Výkaz neexistuje';

/**
 * Timesheets for the API, crm-admin and user deletion: access rules, listing, download and delete
 * here; receiving and recording an upload in TimesheetUpload, bulk removal in TimesheetRemoval.
 */
export class TimesheetService {
  private readonly files: TimesheetFiles;
  private readonly uploads: TimesheetUpload;
  private readonly removal: TimesheetRemoval;
  private readonly allowance: UploadAllowance;

  constructor(private readonly deps: TimesheetServiceDeps) {
    const { timesheets, transactions, storage, audit, logger } = deps;
    this.files = new TimesheetFiles(storage, logger);
    this.allowance = new UploadAllowance({ timesheets, freeSpace: deps.freeSpace, rate: deps.uploadRate, limits: deps.uploadLimits });
    this.uploads = new TimesheetUpload({ timesheets, transactions, files: this.files, inspector: new FileInspector(storage), audit, allowance: this.allowance });
    this.removal = new TimesheetRemoval({ timesheets, transactions, audit, discardFiles: (keys) => this.files.discardAll(keys) });
  }

  /**
   * Before a byte of an upload is read: free space, quota and rate (429/403/507). An admitted upload
   * that then fails must be released, so that only stored files count against the rate.
   */
  admitUpload(actor: TimesheetActor): Promise<void> {
    return this.allowance.admit(actor.userId);
  }

  releaseUpload(actor: TimesheetActor): Promise<void> {
    return this.allowance.release(actor.userId);
  }

  /** Streams an upload into storage (see TimesheetFiles.receive); nothing references it until upload() commits. */
  receive(source: Readable): Promise<StoredObject> {
    return this.files.receive(source);
  }

  /** Removes a stored file that no row references (any more); never throws. */
  discard(key: string): Promise<void> {
    return this.files.discard(key);
  }

  /** Checks a received file and records it; the stored file is removed if anything fails. */
  upload(actor: TimesheetActor, request: UploadRequest, meta: RequestMeta): Promise<Timesheet> {
    return this.uploads.upload(actor, request, meta);
  }

  listOwn(actor: TimesheetActor, filter: Omit<TimesheetFilter, 'userId'>, page: PageRequest): Promise<Page<Timesheet>> {
    return this.deps.timesheets.page({ ...filter, userId: actor.userId }, page);
  }

  listAll(actor: TimesheetActor, filter: TimesheetFilter, page: PageRequest): Promise<Page<Timesheet>> {
    if (actor.role !== 'admin') throw new ForbiddenError();
    return this.deps.timesheets.page(filter, page);
  }

  /**
   * A member reaches only own timesheets; anyone else's id is "not found", never "forbidden" (no existence leak).
   * Inside a transaction the row is locked.
   */
  async findAccessible(actor: TimesheetActor, id: string, transaction?: Tx): Promise<Timesheet> {
    const ownerId = actor.role === 'admin' ? undefined : actor.userId;
    const timesheet = await this.deps.timesheets.findById(id, ownerId, transaction);
    if (!timesheet) throw new NotFoundError(NOT_FOUND_MESSAGE);
    return timesheet;
  }

  async openDownload(actor: TimesheetActor, id: string): Promise<TimesheetDownload> {
    const timesheet = await this.findAccessible(actor, id);
    const { stream, size } = await this.files.open(timesheet);
    const contentType = CONTENT_TYPES[timesheet.fileType as TimesheetFileKind] ?? 'application/octet-stream';
    return { timesheet, stream, size, contentType };
  }

  /** Row and audit record in one transaction; the file goes once the row is surely gone. */
  async delete(actor: TimesheetActor, id: string, meta: RequestMeta): Promise<void> {
    const { timesheets, transactions, audit } = this.deps;
    const removed = await transactions.run(async (tx) => {
      const timesheet = await this.findAccessible(actor, id, tx);
      await timesheets.destroy(timesheet, tx);
      await audit.record(
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
        tx,
      );
      return timesheet;
    });
    await this.files.discard(removed.filePath);
  }

  /**
   * Every timesheet of a user, rows and files (for the admin user deletion). Pass the deletion's
   * transaction and call this BEFORE deleting the user (the cascade would drop the rows, and with them
   * the keys of the files); the files are removed only once that transaction has committed.
   */
  removeAllForUser(userId: string, tx?: Tx): Promise<RemovalResult> {
    return this.removal.removeAllForUser(userId, tx);
  }

  /** Rows and files of periods before `before` (crm-admin timesheets purge); audited unless a dry run. */
  purge(options: PurgeOptions, meta: RequestMeta): Promise<RemovalResult> {
    return this.removal.purge(options, meta);
  }
}
