import { Router } from 'express';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import { requireAuthContext } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseBody, parseParams, parseQuery } from '../http/validate.js';
import { idParams } from '../shared/validation.js';
import { listResult } from '../shared/pagination.js';
import { presentFollowUp } from './follow-up-presenter.js';
import type { FollowUpData } from './follow-up-responses.js';
import { listFollowUpsQuery, putFollowUpBody } from './follow-up-schemas.js';
import type { FollowUpService } from './follow-up-service.js';

/** /api/contacts/:id/follow-up: the caller's own reminder on one contact (mounted before the contacts router). */
export function createContactFollowUpRouter(services: { followUps: FollowUpService }, auth: AuthMiddleware): Router {
  const { followUps } = services;
  const router = Router();

  router.put('/:id/follow-up', auth.requireAuth, async (req, res) => {
    // A malformed id is 400, as on every /api/contacts/:id route; an unknown or invisible one 404.
    const { id } = parseParams(idParams, req);
    const body = parseBody(putFollowUpBody, req);
    // 200 whether it was set or replaced (ADR 0119): the answer is the follow-up as it stands now.
    const { followUp, created } = await followUps.set(requireAuthContext(req).userId, id, body);
    ok(res, { followUp: presentFollowUp(followUp) } satisfies FollowUpData, created ? 'Pripomienka bola nastavená' : 'Pripomienka bola zmenená');
  });

  router.delete('/:id/follow-up', auth.requireAuth, async (req, res) => {
    const { id } = parseParams(idParams, req);
    await followUps.remove(requireAuthContext(req).userId, id);
    res.status(204).end();
  });

  return router;
}

/** /api/follow-ups: the caller's reminders, by due time. */
export function createFollowUpRouter(services: { followUps: FollowUpService }, auth: AuthMiddleware): Router {
  const { followUps } = services;
  const router = Router();
  router.use(auth.requireAuth);

  router.get('/', async (req, res) => {
    const { page, limit, status, contactId } = parseQuery(listFollowUpsQuery, req);
    const { items, total } = await followUps.list(requireAuthContext(req).userId, { status, ...(contactId ? { contactId } : {}) }, { page, limit });
    ok(res, listResult(items.map(presentFollowUp), { page, limit }, total), 'Zoznam pripomienok');
  });

  return router;
}
