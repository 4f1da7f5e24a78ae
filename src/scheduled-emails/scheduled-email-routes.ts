import { Router } from 'express';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import { requestMeta, requireAuthContext } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseParams, parseQuery } from '../http/validate.js';
import { listResult } from '../shared/pagination.js';
import { idParams } from '../shared/validation.js';
import { presentScheduled } from './scheduled-email-presenter.js';
import type { ScheduledEmailData } from './scheduled-email-responses.js';
import { scheduledListQuery } from './scheduled-email-schemas.js';
import type { ScheduledEmailService } from './scheduled-email-service.js';

/** /api/scheduled-emails: the caller's own sends scheduled for later (sendAt), their state, and cancel. */
export function createScheduledEmailRouter(services: { scheduledEmails: ScheduledEmailService }, auth: AuthMiddleware): Router {
  const { scheduledEmails } = services;
  const router = Router();
  router.use(auth.requireAuth);

  router.get('/', async (req, res) => {
    const { page, limit, status } = parseQuery(scheduledListQuery, req);
    const { items, total } = await scheduledEmails.list(requireAuthContext(req).userId, { page, limit }, status);
    ok(res, listResult(items.map(presentScheduled), { page, limit }, total), 'Naplánované emaily');
  });

  router.get('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    ok(res, { scheduled: presentScheduled(await scheduledEmails.get(requireAuthContext(req).userId, id)) } satisfies ScheduledEmailData, 'Naplánovaný email');
  });

  router.delete('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const cancelled = await scheduledEmails.cancel(requireAuthContext(req).userId, id, requestMeta(req));
    ok(res, { scheduled: presentScheduled(cancelled) } satisfies ScheduledEmailData, 'Odoslanie emailu bolo zrušené; text zostal v konceptoch');
  });

  return router;
}
