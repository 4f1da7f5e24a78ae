import { Router } from 'express';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import { requireAuthContext } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseBody, parseQuery } from '../http/validate.js';
import { NotFoundError } from '../errors/app-errors.js';
import { CONTACT_NOT_FOUND } from '../contacts/contact-records.js';
import { idParams } from '../shared/validation.js';
import { listResult } from '../shared/pagination.js';
import { presentFollowUp } from './follow-up-presenter.js';
import type { FollowUpData } from './follow-up-responses.js';
import { listFollowUpsQuery, putFollowUpBody } from './follow-up-schemas.js';
import type { FollowUpService } from './follow-up-service.js';

/**
 * The contact of the path: an id that is not even a UUID names no contact the caller may see, so it is
 * the same 404 as an unknown or invisible one (the brief of issue 38; ADR 0119).
 */
function contactIdOf(params: unknown): string {
  const parsed = idParams.safeParse(params);
  if (!parsed.success) throw new NotFoundError(CONTACT_NOT_FOUND);
  return parsed.data.id;
}

/** /api/contacts/:id/follow-up: the caller's own reminder on one contact (mounted before the contacts router). */
export function createContactFollowUpRouter(services: { followUps: FollowUpService }, auth: AuthMiddleware): Router {
  const { followUps } = services;
  const router = Router();

  router.put('/:id/follow-up', auth.requireAuth, async (req, res) => {
    const id = contactIdOf(req.params);
    const body = parseBody(putFollowUpBody, req);
    // 200 whether it was set or replaced (ADR 0119): the answer is the follow-up as it stands now.
    const { followUp, created } = await followUps.set(requireAuthContext(req).userId, id, body);
    ok(res, { followUp: presentFollowUp(followUp) } satisfies FollowUpData, created ? 'Pripomienka bola nastavená' : 'Pripomienka bola zmenená');
  });

  router.delete('/:id/follow-up', auth.requireAuth, async (req, res) => {
    const id = contactIdOf(req.params);
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
    const { page, limit, status } = parseQuery(listFollowUpsQuery, req);
    const { items, total } = await followUps.list(requireAuthContext(req).userId, status, { page, limit });
    ok(res, listResult(items.map(presentFollowUp), { page, limit }, total), 'Zoznam pripomienok');
  });

  return router;
}
