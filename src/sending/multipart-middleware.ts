/**
 * The one multipart/form-data reader of outgoing mail (compose, reply, forward: src/sending/sending-routes.ts;
 * a draft's files: src/drafts/draft-routes.ts). Text fields first, then files in "attachments": at the
 * first file the text fields read so far are the whole form's and are validated, so nothing is
 * uploaded for a form that would be refused anyway (issue 26); a text field after a file is refused.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Request, Response } from 'express';
import multer, { MulterError, type StorageEngine } from 'multer';
import { PayloadTooLargeError, ValidationError } from '../errors/app-errors.js';
import { ConcurrencyGate } from '../shared/concurrency-gate.js';
import { sanitiseFileName } from '../timesheets/file-name.js';
import { toUploadError } from '../timesheets/upload-middleware.js';
import { MAX_FILES } from './attachment-intake.js';
import { requestHash } from './request-hash.js';
import { composeBody, MAX_BODY_CHARS } from './sending-schemas.js';
import { MAX_RECIPIENTS, TOO_MANY_RECIPIENTS } from './send-request.js';

export const FIELDS_FIRST = 'Textové polia formulára (adresáti, predmet, text...) uveďte pred prílohami';
export const TOO_MANY_FILES = `Prílohy posielajte v poli "attachments", najviac ${MAX_FILES}`;

/**
 * A form is judged by the JSON body's rules (issue 34): one part per recipient is how forms repeat
 * `to`, so the form takes as many text parts as the JSON body takes recipients (MAX_RECIPIENTS over
 * to, cc and bcc), plus the other fields once each. More than that is refused with the JSON body's
 * message for too many recipients (formError).
 */
const MAX_FORM_FIELDS = MAX_RECIPIENTS + Object.keys(composeBody.shape).length + 1;

function formLimits(maxBytes: number) {
  return {
    fileSize: maxBytes + 1,
    files: MAX_FILES,
    fields: MAX_FORM_FIELDS,
    parts: MAX_FILES + MAX_FORM_FIELDS,
    fieldNameSize: 32,
    fieldSize: MAX_BODY_CHARS * 4,
    headerPairs: 20,
  };
}

export interface FormHandlers<T> {
  /** The text fields, validated at the first file (`atFile`) or at the end of a form without files; throws to refuse the form. */
  validate(fields: Record<string, unknown>, atFile: boolean): T;
  /** One file, streamed while the form arrives (checked and uploaded: AttachmentIntake); `fields` are the validated ones. */
  file(fields: T, stream: Readable, name: string, type: string): Promise<{ blobId: string; size: number }>;
}

/** Parses the form, handing each file on as it arrives. Answers the validated text fields. */
export async function readForm<T>({ req, res, maxBytes }: { req: Request; res: Response; maxBytes: number }, handlers: FormHandlers<T>): Promise<T> {
  let beforeFiles: string | undefined;
  let validated: { fields: T } | undefined;
  const storage: StorageEngine = {
    _handleFile(request, file, callback) {
      try {
        if (validated === undefined) {
          const fields = request.body as Record<string, unknown>;
          beforeFiles = JSON.stringify(fields);
          validated = { fields: handlers.validate(fields, true) };
        }
      } catch (err) {
        return callback(err);
      }
      handlers.file(validated.fields, file.stream, file.originalname, file.mimetype).then(
        (blob) => callback(null, { filename: blob.blobId, size: blob.size }),
        (err: unknown) => callback(err),
      );
    },
    // What was uploaded for a refused form: blobs expire on the mail server, unowned kept files go with the cleanup job.
    _removeFile(_request, _file, callback) {
      callback(null);
    },
  };
  const upload = multer({
    storage,
    // fileSize: a body of unknown length (chunked) still ends; the exact limits are the intake's.
    limits: formLimits(maxBytes),
    // Browsers send file names as raw UTF-8; busboy's default latin1 would garble "príloha.pdf".
    defParamCharset: 'utf8',
  }).array('attachments', MAX_FILES);
  await new Promise<void>((resolve, reject) => {
    upload(req, res, (err?: unknown) => (err === undefined ? resolve() : reject(formError(err))));
  });
  if (beforeFiles !== undefined && beforeFiles !== JSON.stringify(req.body)) {
    throw new ValidationError(FIELDS_FIRST, [{ field: 'attachments', message: FIELDS_FIRST }]);
  }
  return validated ? validated.fields : handlers.validate({ ...(req.body as Record<string, unknown>) }, false);
}

/** Reads the whole form, hashing each file and keeping nothing (the retry of an Idempotency-Key). */
export async function hashForm(req: Request, res: Response, maxBytes: number): Promise<string> {
  const files: Array<{ name: string; sha256: string }> = [];
  const storage: StorageEngine = {
    _handleFile(_request, file, callback) {
      const slot = files.push({ name: sanitiseFileName(file.originalname) || 'priloha', sha256: '' }) - 1;
      const digest = createHash('sha256');
      file.stream.on('data', (chunk: Buffer) => digest.update(chunk));
      file.stream.on('error', (err) => callback(err));
      file.stream.on('end', () => {
        files[slot].sha256 = digest.digest('hex');
        callback(null, {});
      });
    },
    _removeFile(_request, _file, callback) {
      callback(null);
    },
  };
  await new Promise<void>((resolve, reject) => {
    multer({ storage, limits: formLimits(maxBytes), defParamCharset: 'utf8' }).array('attachments', MAX_FILES)(req, res, (err?: unknown) =>
      err === undefined ? resolve() : reject(formError(err)),
    );
  });
  return requestHash(req.body ?? {}, files);
}

function formError(err: unknown): unknown {
  if (err instanceof MulterError && (err.code === 'LIMIT_FIELD_COUNT' || err.code === 'LIMIT_PART_COUNT')) {
    return new ValidationError(TOO_MANY_RECIPIENTS, [{ field: 'to', message: TOO_MANY_RECIPIENTS }]);
  }
  if (err instanceof MulterError && (err.code === 'LIMIT_UNEXPECTED_FILE' || err.code === 'LIMIT_FILE_COUNT')) {
    return new ValidationError(TOO_MANY_FILES, [{ field: 'attachments', message: TOO_MANY_FILES }]);
  }
  return toUploadError(err);
}

/** Boundaries, part headers and the text fields around the attachments. */
const FORM_OVERHEAD = 8 * 1024 * 1024;
const UPLOADS_BUSY = 'Príliš veľa odosielaní s prílohami naraz. Počkajte, kým sa dokončia, a skúste to znova.';

/**
 * What every form with files passes first, shared by sending and drafts (one gate per process): a
 * declared size beyond the attachments' limit is refused before a byte is read (413), and only so
 * many forms of one user (and in all) are read at once (429 with Retry-After).
 */
export class FormUploads {
  private readonly gate: ConcurrencyGate;

  constructor(readonly limits: { maxTotalBytes: number; uploadsPerUser: number; uploadsTotal: number }) {
    this.gate = new ConcurrencyGate({ perKey: limits.uploadsPerUser, total: limits.uploadsTotal }, UPLOADS_BUSY);
  }

  get maxTotalBytes(): number {
    return this.limits.maxTotalBytes;
  }

  /** Refuses a form declared too large; a multipart request takes a place (the answer gives it back), JSON takes none. */
  enter(req: Request, res: Response, userId: string): () => void {
    const declared = Number(req.headers['content-length']);
    if (declared > this.limits.maxTotalBytes + FORM_OVERHEAD) {
      res.setHeader('Connection', 'close');
      throw new PayloadTooLargeError('Prílohy sú príliš veľké');
    }
    return req.is('multipart/form-data') ? this.gate.enter(userId) : () => undefined;
  }
}
