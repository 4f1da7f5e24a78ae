import { createHash } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import multer, { MulterError, type StorageEngine } from 'multer';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import { PayloadTooLargeError, ValidationError } from '../errors/app-errors.js';
import { requestMeta, requireAuthContext } from '../http/auth-context.js';
import { parseParams } from '../http/validate.js';
import { ConcurrencyGate } from '../shared/concurrency-gate.js';
import { idParams, parse } from '../shared/validation.js';
import { sanitiseFileName } from '../timesheets/file-name.js';
import { toUploadError } from '../timesheets/upload-middleware.js';
import type { ScheduledEmailService } from '../scheduled-emails/scheduled-email-service.js';
import { presentScheduled } from '../scheduled-emails/scheduled-email-presenter.js';
import type { EmailSenderService, OutgoingMessage, SendTarget } from './email-sender-service.js';
import type { RequestContent } from './idempotency.js';
import { requestHash } from './request-hash.js';
import { presentSent } from './sending-presenter.js';
import { composeBody, forwardBody, idempotencyKey, MAX_BODY_CHARS, replyBody } from './sending-schemas.js';
import { MAX_RECIPIENTS, TOO_MANY_RECIPIENTS, type ComposeBody, type ForwardBody, type ReplyBody } from './send-request.js';

const MAX_FILES = 20;
/** Boundaries, part headers and the text fields around the attachments. */
const FORM_OVERHEAD = 8 * 1024 * 1024;
const SENT = 'Email bol odoslaný';
export const SCHEDULED = 'Email bol naplánovaný na odoslanie';
const FIELDS_FIRST = 'Textové polia formulára (adresáti, predmet, text...) uveďte pred prílohami';
const UPLOADS_BUSY = 'Príliš veľa odosielaní s prílohami naraz. Počkajte, kým sa dokončia, a skúste to znova.';

/**
 * POST /api/emails (new message), POST /api/emails/:id/reply and /forward, as JSON or as multipart/form-data
 * with files in the field "attachments", streamed to the mail server while the form arrives. Every
 * text field must come before the first file: the whole form is validated there, before the first
 * byte goes to the mail server (issue 26); a text field after a file is refused.
 */
export function createSendingRouter(
  services: { sending: EmailSenderService; scheduledEmails: ScheduledEmailService },
  auth: AuthMiddleware,
  limits: { maxTotalBytes: number; uploadsPerUser: number; uploadsTotal: number },
): Router {
  const { sending, scheduledEmails } = services;
  const router = Router();
  const uploads = new ConcurrencyGate({ perKey: limits.uploadsPerUser, total: limits.uploadsTotal }, UPLOADS_BUSY);

  const handle = (target: (req: Request) => SendTarget) => async (req: Request, res: Response) => {
    const declared = Number(req.headers['content-length']);
    if (declared > limits.maxTotalBytes + FORM_OVERHEAD) {
      res.setHeader('Connection', 'close');
      throw new PayloadTooLargeError('Prílohy sú príliš veľké');
    }
    const { userId, sessionId } = requireAuthContext(req);
    const header = req.get('idempotency-key');
    const key = header === undefined ? undefined : parse(idempotencyKey, header, 'Neplatná hlavička Idempotency-Key');
    const multipart = Boolean(req.is('multipart/form-data'));
    const release = multipart ? uploads.enter(userId) : () => undefined;
    try {
      const gone = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) gone.abort();
      });
      const message = sending.start(userId, target(req), gone.signal, sessionId);
      const fingerprint = `${req.method} ${req.baseUrl}${req.path}`;
      const answer = await sending.guarded(
        message,
        key,
        fingerprint,
        async () => {
          // A form's files go to the file storage when it says sendAt (known before the first file).
          const keep = (fields: SendBody) => {
            if (fields.sendAt) message.keepFiles = scheduledEmails.fileTarget();
          };
          const body = multipart ? await readForm(sending, message, { req, res, maxBytes: limits.maxTotalBytes, keep }) : fieldsOf(message.target, req.body);
          if (body.sendAt) {
            const { sendAt, ...request } = body;
            const scheduled = await scheduledEmails.schedule(message, request, sendAt, requestMeta(req));
            return { status: 202, body: { success: true, data: { scheduled: presentScheduled(scheduled) }, message: SCHEDULED } };
          }
          const result = await sending.send(message, body, requestMeta(req));
          return { status: 201, body: { success: true, data: presentSent(result), message: SENT } };
        },
        multipart ? formContent(message, req, res, limits.maxTotalBytes) : jsonContent(req.body),
      );
      if (answer.replayed) res.setHeader('Idempotent-Replayed', 'true');
      res.status(answer.status).json(answer.body);
    } finally {
      release();
    }
  };

  router.post(
    '/',
    auth.requireAuth,
    handle(() => ({ kind: 'new' })),
  );
  router.post(
    '/:id/reply',
    auth.requireAuth,
    handle((req) => ({ kind: 'reply', emailId: parseParams(idParams, req).id })),
  );
  router.post(
    '/:id/forward',
    auth.requireAuth,
    handle((req) => ({ kind: 'forward', emailId: parseParams(idParams, req).id })),
  );
  return router;
}

/** A JSON body's hash is known at once. */
function jsonContent(body: unknown): RequestContent {
  const known = requestHash(body ?? {}, []);
  return { known, read: () => Promise.resolve(known), sent: () => Promise.resolve(known) };
}

/**
 * A form's hash is known once it is read: for the request that sends, from the fields and the files
 * as they went to the mail server; for a retry of a finished key, by reading the form and uploading
 * nothing.
 */
function formContent(message: OutgoingMessage, req: Request, res: Response, maxBytes: number): RequestContent {
  return {
    read: () => hashForm(req, res, maxBytes),
    sent: async () => {
      const attachments = message.origin ? (await message.origin).intake.attachments : [];
      return requestHash(
        req.body ?? {},
        attachments.map((a) => ({ name: a.name, sha256: a.sha256 ?? '' })),
      );
    },
  };
}

/** Reads the whole form, hashing each file and keeping nothing. */
async function hashForm(req: Request, res: Response, maxBytes: number): Promise<string> {
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

type SendBody = ReplyBody | ComposeBody | ForwardBody;

function fieldsOf(target: SendTarget, fields: unknown): SendBody {
  if (target.kind === 'forward') return parse(forwardBody, fields ?? {});
  return target.kind === 'reply' ? parse(replyBody, fields ?? {}) : parse(composeBody, fields ?? {});
}

/**
 * Parses the form. At the first file the text fields read so far are the whole form's and are
 * validated; each file is then uploaded to the mail server as it arrives. Answers the text fields.
 */
async function readForm(
  sending: EmailSenderService,
  message: OutgoingMessage,
  { req, res, maxBytes, keep }: { req: Request; res: Response; maxBytes: number; keep: (fields: SendBody) => void },
): Promise<SendBody> {
  let beforeFiles: string | undefined;
  let validated: ReplyBody | ComposeBody | ForwardBody | undefined;
  const storage: StorageEngine = {
    _handleFile(request, file, callback) {
      try {
        if (validated === undefined) {
          const fields = request.body as Record<string, unknown>;
          if (Object.keys(fields).length === 0) throw new ValidationError(FIELDS_FIRST, [{ field: 'attachments', message: FIELDS_FIRST }]);
          beforeFiles = JSON.stringify(fields);
          validated = fieldsOf(message.target, fields);
          keep(validated);
        }
      } catch (err) {
        return callback(err);
      }
      sending.attach(message, validated, file.stream, file.originalname, file.mimetype).then(
        (blob) => callback(null, { filename: blob.blobId, size: blob.size }),
        (err: unknown) => callback(err),
      );
    },
    // Uploaded blobs nobody references expire on the mail server by themselves.
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
  return validated ?? fieldsOf(message.target, { ...(req.body as Record<string, unknown>) });
}
function formError(err: unknown): unknown {
  if (err instanceof MulterError && (err.code === 'LIMIT_FIELD_COUNT' || err.code === 'LIMIT_PART_COUNT')) {
    return new ValidationError(TOO_MANY_RECIPIENTS, [{ field: 'to', message: TOO_MANY_RECIPIENTS }]);
  }
  if (err instanceof MulterError && (err.code === 'LIMIT_UNEXPECTED_FILE' || err.code === 'LIMIT_FILE_COUNT')) {
    const text = `Prílohy posielajte v poli "attachments", najviac ${MAX_FILES}`;
    return new ValidationError(text, [{ field: 'attachments', message: text }]);
  }
  return toUploadError(err);
}
