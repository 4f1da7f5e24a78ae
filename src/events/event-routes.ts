import { Router } from 'express';
import { requireSessionId, type AuthMiddleware } from '../auth/auth-middleware.js';
import { requireAuthContext } from '../http/auth-context.js';
import type { EventHub } from './event-hub.js';
import { SseResponse } from './sse-response.js';

/**
 * GET /api/events: the caller's live updates as server-sent events (docs/api.md "Live updates").
 * Authenticated like every endpoint (401 in the envelope); the stream itself then lives as long as
 * the session does. Failures before the stream opens (429, 503) are ordinary envelopes.
 */
export function createEventRouter(services: { events: EventHub }, auth: AuthMiddleware): Router {
  const router = Router();
  router.get('/', auth.requireAuth, async (req, res) => {
    const { userId } = requireAuthContext(req);
    const sessionId = requireSessionId(requireAuthContext(req));
    await services.events.subscribe({ userId, sessionId }, req.get('last-event-id'), new SseResponse(res));
  });
  return router;
}
