import type { Request, RequestHandler } from 'express';
import multer, { MulterError, type StorageEngine } from 'multer';
import type { Readable } from 'node:stream';
import { AppError, BadRequestError, PayloadTooLargeError, ValidationError } from '../errors/app-errors.js';
import { kindForFileName, TIMESHEET_MAX_BYTES, TOO_LARGE_MESSAGE, unsupportedTypeError } from './file-inspector.js';
import { sanitiseFileName } from './file-name.js';
import type { StoredObject } from '../storage/file-storage.js';
import type { TimesheetService } from './timesheet-service.js';

/** One file and two short numeric fields: anything beyond that is not our form. */
const UPLOAD_LIMITS = {
  fileSize: TIMESHEET_MAX_BYTES,
  files: 1,
  fields: 4,
  parts: 6,
  fieldNameSize: 32,
  fieldSize: 64,
  headerPairs: 20,
};
/** Boundaries, part headers and the small fields around a maximal file fit easily in this. */
const MULTIPART_OVERHEAD = 64 * 1024;

/** A file part being written: its source stream and the storage write in progress. */
interface Receiving {
  source: Readable;
  stored: Promise<StoredObject>;
}

/**
 * Streams the file part straight into the timesheet storage (no memory buffering, no client-chosen
 * names). multer calls _removeFile for a stored file when the request fails after it was stored.
 */
class TimesheetStorageEngine implements StorageEngine {
  constructor(
    private readonly timesheets: TimesheetService,
    private readonly track: (req: Request, receiving: Receiving) => void,
  ) {}

  _handleFile(req: Request, file: Express.Multer.File, callback: (error?: unknown, info?: Partial<Express.Multer.File>) => void): void {
    const stored = this.timesheets.receive(file.stream);
    this.track(req, { source: file.stream, stored });
    stored.then(
      // `filename` carries the storage key: multer's "name within the destination".
      (object) => callback(null, { filename: object.key, size: object.size }),
      (err: unknown) => callback(err),
    );
  }

  _removeFile(_req: Request, file: Express.Multer.File, callback: (error: Error | null) => void): void {
    void this.timesheets.discard(file.filename).then(() => callback(null));
  }
}

/** `req.file` afterwards: filename = storage key, size = bytes stored, originalname = the client's name. */
export function createUploadMiddleware(timesheets: TimesheetService): RequestHandler {
  const inFlight = new WeakMap<Request, Receiving[]>();
  const track = (req: Request, receiving: Receiving) => inFlight.set(req, [...(inFlight.get(req) ?? []), receiving]);
  const upload = multer({
    storage: new TimesheetStorageEngine(timesheets, track),
    limits: UPLOAD_LIMITS,
    // Browsers send file names as raw UTF-8; busboy's default latin1 would turn "Výkaz" into mojibake.
    defParamCharset: 'utf8',
    // The extension is checked before a byte is written; the content is checked after storing.
    fileFilter: (_req, file, accept) => (kindForFileName(sanitiseFileName(file.originalname)) ? accept(null, true) : accept(unsupportedTypeError())),
  }).single('file');

  /**
   * multer answers some failures (a file stream that errors, a client that disconnects) without
   * waiting for the storage write it started. Settle those writes and drop what they stored before
   * the error goes out, so a failed request never leaves a file behind, not even for a moment.
   * Answers the storage's own verdict when it has one: a store that fails destroys the file stream
   * with its system error (pipeline), and multer reports that echo first.
   */
  async function discardInFlight(req: Request): Promise<AppError | undefined> {
    const receiving = inFlight.get(req) ?? [];
    for (const { source } of receiving) if (!source.readableEnded) source.destroy();
    const results = await Promise.allSettled(receiving.map((r) => r.stored));
    const storedKeys = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.key] : []));
    await Promise.all(storedKeys.map((key) => timesheets.discard(key)));
    return results.map((r): unknown => (r.status === 'rejected' ? r.reason : undefined)).find((reason): reason is AppError => reason instanceof AppError);
  }

  return (req, res, next) => {
    const declared = Number(req.headers['content-length']);
    if (declared > TIMESHEET_MAX_BYTES + MULTIPART_OVERHEAD) {
      // Refuse before reading; closing spares both sides the transfer of a body nobody wants.
      res.setHeader('Connection', 'close');
      next(new PayloadTooLargeError(TOO_LARGE_MESSAGE));
      return;
    }
    upload(req, res, (err?: unknown) => {
      if (err === undefined) {
        next();
        return;
      }
      void discardInFlight(req).then((storageVerdict) => next(storageVerdict ?? toUploadError(err)));
    });
  };
}

const MULTER_MESSAGES: Record<string, string> = {
  LIMIT_FILE_COUNT: 'Nahrajte práve jeden súbor',
  LIMIT_UNEXPECTED_FILE: 'Súbor posielajte v poli "file", práve jeden',
  LIMIT_PART_COUNT: 'Formulár má príliš veľa častí',
  LIMIT_FIELD_COUNT: 'Formulár má príliš veľa polí',
  LIMIT_FIELD_KEY: 'Názov poľa formulára je príliš dlhý',
  LIMIT_FIELD_VALUE: 'Hodnota poľa formulára je príliš dlhá',
};

/** Everything multer and busboy can raise, in the contract's envelope: never a 500 for a malformed upload. */
export function toUploadError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  if (err instanceof MulterError) {
    if (err.code === 'LIMIT_FILE_SIZE') return new PayloadTooLargeError(TOO_LARGE_MESSAGE);
    const message = MULTER_MESSAGES[err.code] ?? 'Neplatný formulár';
    return new ValidationError(message, [{ field: err.field ?? null, message }]);
  }
  const e = err as Partial<NodeJS.ErrnoException>;
  if (e.code === 'ECONNRESET' || e.code === 'ERR_STREAM_PREMATURE_CLOSE' || /^Request (aborted|closed)$/.test(e.message ?? '')) {
    return new BadRequestError('Požiadavka bola prerušená');
  }
  // A refusing store arrives as a 503 from TimesheetService.receive; any other system error is a fault
  // of ours that fits no kind: the generic 500 path (logged, no internals shown).
  if (typeof e.syscall === 'string') return err;
  return new BadRequestError('Neplatná multipart požiadavka');
}
