import { Router, type Request, type Response } from 'express';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import { ValidationError } from '../errors/app-errors.js';
import { requestMeta, requireAuthContext, signInOf } from '../http/auth-context.js';
import { parseParams } from '../http/validate.js';
import { idParams, parse } from '../shared/validation.js';
import type { ScheduledEmailService } from '../scheduled-emails/scheduled-email-service.js';
import { presentScheduled } from '../scheduled-emails/scheduled-email-presenter.js';
import type { EmailSenderService, OutgoingMessage, SendTarget } from './email-sender-service.js';
import type { RequestContent } from './idempotency.js';
import { FIELDS_FIRST, hashForm, readForm as readMultipart, type FormUploads } from './multipart-middleware.js';
import { requestHash } from './request-hash.js';
import { presentSent } from './sending-presenter.js';
import { composeBody, forwardBody, idempotencyKey, replyBody } from './sending-schemas.js';
import type { ComposeBody, ForwardBody, ReplyBody } from './send-request.js';

const SENT = 'Email bol odoslaný';
export const SCHEDULED = 'Email bol naplánovaný na odoslanie';

/**
 * POST /api/emails (new message), POST /api/emails/:id/reply and /forward, as JSON or as multipart/form-data
 * with files in the field "attachments", streamed to the mail server while the form arrives. Every
 * text field must come before the first file: the whole form is validated there, before the first
 * byte goes to the mail server (issue 26); a text field after a file is refused.
 */
export function createSendingRouter(services: { sending: EmailSenderService; scheduledEmails: ScheduledEmailService }, auth: AuthMiddleware, uploads: FormUploads): Router {
  const { sending, scheduledEmails } = services;
  const router = Router();
  const limits = { maxTotalBytes: uploads.maxTotalBytes };

  const handle = (target: (req: Request) => SendTarget) => async (req: Request, res: Response) => {
    const { userId } = requireAuthContext(req);
    const release = uploads.enter(req, res, userId);
    const multipart = Boolean(req.is('multipart/form-data'));
    try {
      const header = req.get('idempotency-key');
      const key = header === undefined ? undefined : parse(idempotencyKey, header, 'Neplatná hlavička Idempotency-Key');
      const gone = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) gone.abort();
      });
      const message = sending.start(userId, target(req), gone.signal, signInOf(req));
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

type SendBody = ReplyBody | ComposeBody | ForwardBody;

function fieldsOf(target: SendTarget, fields: unknown): SendBody {
  if (target.kind === 'forward') return parse(forwardBody, fields ?? {});
  return target.kind === 'reply' ? parse(replyBody, fields ?? {}) : parse(composeBody, fields ?? {});
}

/**
 * Parses the form (src/sending/multipart-middleware.ts): at the first file the text fields read so far are
 * the whole form's and are validated; each file is then uploaded to the mail server as it arrives.
 */
function readForm(
  sending: EmailSenderService,
  message: OutgoingMessage,
  { req, res, maxBytes, keep }: { req: Request; res: Response; maxBytes: number; keep: (fields: SendBody) => void },
): Promise<SendBody> {
  return readMultipart(
    { req, res, maxBytes },
    {
      validate: (fields, atFile) => {
        // A file before any text field: the fields came after it (or not at all).
        if (atFile && Object.keys(fields).length === 0) throw new ValidationError(FIELDS_FIRST, [{ field: 'attachments', message: FIELDS_FIRST }]);
        const validated = fieldsOf(message.target, fields);
        keep(validated);
        return validated;
      },
      file: (fields, stream, name, type) => sending.attach(message, fields, stream, name, type),
    },
  );
}
