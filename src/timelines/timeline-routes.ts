import { Router, type Request } from 'express';
import { scopesGrant } from '../api-tokens/api-token-scopes.js';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import { requireAuthContext } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseParams, parseQuery } from '../http/validate.js';
import { idParams } from '../shared/validation.js';
import { presentTimeline } from './timeline-presenter.js';
import { timelineQuery } from './timeline-schemas.js';
import type { TimelineKinds, TimelineService, TimelineSubject } from './timeline-service.js';

/**
 * What a caller gets of a timeline: everything with a login session; with an API token only the kinds
 * its scopes read elsewhere (emails:read, tasks:read, and contacts:read for follow-ups), so a
 * people:read token is no back door to mail (src/api-tokens/api-token-scopes.ts).
 */
function kindsOf(req: Request): TimelineKinds {
  const token = requireAuthContext(req).apiToken;
  if (!token) return { emails: true, tasks: true, followUps: true };
  return { emails: scopesGrant(token.scopes, 'emails:read'), tasks: scopesGrant(token.scopes, 'tasks:read'), followUps: scopesGrant(token.scopes, 'contacts:read') };
}

/**
 * GET /api/people/:id/timeline and GET /api/companies/:id/timeline (mounted before the people and
 * companies routers, whose other paths fall through). A page costs index ranges of the page's size
 * whatever its depth (a keyset), so it is not counted among a user's expensive requests.
 */
export function createTimelineRouter(subject: TimelineSubject, services: { timelines: TimelineService }, auth: AuthMiddleware): Router {
  const router = Router();
  router.get('/:id/timeline', auth.requireAuth, async (req, res) => {
    const { id } = parseParams(idParams, req);
    const query = parseQuery(timelineQuery, req);
    const page = await services.timelines.of(requireAuthContext(req).userId, subject, id, { ...query, kinds: kindsOf(req) });
    ok(res, presentTimeline(page, query), subject === 'person' ? 'Časová os osoby' : 'Časová os firmy');
  });
  return router;
}
