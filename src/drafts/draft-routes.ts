import { Router, type Request, type Response } from 'express';
import type { z } from 'zod';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import { requestMeta, requireAuthContext, signInOf } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseBody, parseParams, parseQuery } from '../http/validate.js';
import type { EmailSenderService } from '../sending/email-sender-service.js';
import { presentScheduled } from '../scheduled-emails/scheduled-email-presenter.js';
import type { ScheduledEmailService } from '../scheduled-emails/scheduled-email-service.js';
import { requestHash } from '../sending/request-hash.js';
import { presentSent } from '../sending/sending-presenter.js';
import type { OutgoingAttachment } from '../sending/compose.js';
import { readForm, type FormUploads } from '../sending/multipart-middleware.js';
import { idempotencyKey } from '../sending/sending-schemas.js';
import { listResult } from '../shared/pagination.js';
import { idParams, paginationQuery, parse } from '../shared/validation.js';
import { presentDraft } from './draft-presenter.js';
import type { DraftData } from './draft-responses.js';
import { createDraftBody, draftFileParams, sendDraftBody, updateDraftBody, updateDraftFields } from './draft-schemas.js';
import type { DraftInput, DraftService } from './draft-service.js';

/**
 * /api/drafts: the caller's drafts on the server; POST /api/drafts/:id/send sends one like compose/reply.
 * POST and PATCH take JSON, or multipart/form-data with the same text fields first and files in
 * "attachments", read by the sending's form reader and checked as a send's files are.
 */
export function createDraftRouter(
  services: { drafts: DraftService; sending: EmailSenderService; scheduledEmails: ScheduledEmailService },
  auth: AuthMiddleware,
  uploads: FormUploads,
): Router {
  const { drafts, sending, scheduledEmails } = services;
  const router = Router();
  router.use(auth.requireAuth);

  /**
   * A draft's form: at its first file the draft (PATCH) and the mailbox are checked, then each file is
   * checked and written to the file storage as it arrives. Answers the fields and the files kept.
   */
  const form = async <T extends DraftInput>(req: Request, res: Response, id: string | undefined, schema: z.ZodType<T>) => {
    const { userId } = requireAuthContext(req);
    const release = uploads.enter(req, res, userId);
    try {
      const gone = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) gone.abort();
      });
      const message = sending.start(userId, { kind: 'new' }, gone.signal);
      message.keepFiles = drafts.fileTarget();
      let mailbox: Promise<string> | undefined;
      const fields = await readForm(
        { req, res, maxBytes: uploads.maxTotalBytes },
        {
          validate: (given) => parse(schema, given),
          file: async (valid, stream, name, type) => {
            mailbox ??= drafts.checkForm(userId, id, valid);
            return sending.keep(message, await mailbox, stream, name, type);
          },
        },
      );
      const kept: OutgoingAttachment[] = message.origin ? (await message.origin).intake.attachments : [];
      return { fields, kept };
    } finally {
      release();
    }
  };

  router.get('/', async (req, res) => {
    const { page, limit } = parseQuery(paginationQuery, req);
    const { items, total } = await drafts.list(requireAuthContext(req).userId, { page, limit });
    ok(res, listResult(items.map(presentDraft), { page, limit }, total), 'Zoznam konceptov');
  });

  router.post('/', async (req, res) => {
    const { fields, kept } = req.is('multipart/form-data') ? await form(req, res, undefined, createDraftBody) : { fields: parseBody(createDraftBody, req), kept: [] };
    ok(res, { draft: presentDraft(await drafts.create(requireAuthContext(req).userId, fields, kept)) } satisfies DraftData, 'Koncept bol uložený', 201);
  });

  router.get('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    ok(res, { draft: presentDraft(await drafts.get(requireAuthContext(req).userId, id)) } satisfies DraftData, 'Koncept');
  });

  router.patch('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const { fields, kept } = req.is('multipart/form-data') ? await form(req, res, id, updateDraftFields) : { fields: parseBody(updateDraftBody, req), kept: [] };
    // A form may bring files alone; a form with neither a field nor a file changes nothing.
    if (kept.length === 0) parse(updateDraftBody, fields);
    ok(res, { draft: presentDraft(await drafts.update(requireAuthContext(req).userId, id, fields, kept)) } satisfies DraftData, 'Koncept bol uložený');
  });

  router.delete('/:id/attachments/:fileId', async (req, res) => {
    const { id, fileId } = parseParams(draftFileParams, req);
    await drafts.removeAttachment(requireAuthContext(req).userId, id, fileId);
    res.status(204).end();
  });

  router.delete('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    await drafts.remove(requireAuthContext(req).userId, id);
    res.status(204).end();
  });

  router.post('/:id/send', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const options = parseBody(sendDraftBody, req);
    const { userId } = requireAuthContext(req);
    const header = req.get('idempotency-key');
    const key = header === undefined ? undefined : parse(idempotencyKey, header, 'Neplatná hlavička Idempotency-Key');
    // The draft is read inside the guarded work: a replay of a sent (so removed) draft answers the first result.
    const message = sending.start(userId, { kind: 'new' }, undefined, signInOf(req));
    const known = requestHash(req.body ?? {}, []);
    const answer = await sending.guarded(
      message,
      key,
      `POST /api/drafts/${id}/send`,
      async () => {
        const draft = await drafts.get(userId, id);
        message.target = drafts.targetOf(draft);
        message.draftId = draft.id;
        if (options.sendAt) {
          // Scheduled: the draft's text and files move to the scheduled email, the draft goes (a cancel makes it again).
          const scheduled = await scheduledEmails.schedule(message, drafts.requestOf(draft, options), options.sendAt, requestMeta(req), draft.id);
          return { status: 202, body: { success: true, data: { scheduled: presentScheduled(scheduled) }, message: 'Email bol naplánovaný na odoslanie' } };
        }
        const result = await drafts.send(message, draft, options, requestMeta(req));
        return { status: 201, body: { success: true, data: presentSent(result), message: 'Email bol odoslaný' } };
      },
      { known, read: () => Promise.resolve(known), sent: () => Promise.resolve(known) },
    );
    if (answer.replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.status(answer.status).json(answer.body);
  });

  return router;
}
