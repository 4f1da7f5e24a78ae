import type { Router } from 'express';
import { requestMeta, requireAuthContext } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseParams } from '../http/validate.js';
import { idParams } from '../shared/validation.js';
import { listResult } from '../shared/pagination.js';
import { requireSessionId, type AuthMiddleware } from './auth-middleware.js';
import type { AuthCookies } from './cookies.js';
import type { SessionManagement } from './session-management.js';
import type { RevokedSessionsData, SessionListData } from './session-responses.js';

/** GET/DELETE /api/auth/sessions and POST /api/auth/sessions/revoke-others: one's own sessions only. */
export function addSessionRoutes(router: Router, services: { sessionManagement: SessionManagement }, auth: AuthMiddleware, cookies: AuthCookies): void {
  const { sessionManagement } = services;

  router.get('/sessions', auth.requireAuth, async (req, res) => {
    const { userId, sessionId } = requireAuthContext(req);
    const sessions = await sessionManagement.list(userId, sessionId);
    ok(res, { items: sessions, sessions, pagination: listResult(sessions, { page: 1, limit: 100 }, sessions.length).pagination } satisfies SessionListData, 'Zoznam relácií');
  });

  router.post('/sessions/revoke-others', auth.requireAuth, async (req, res) => {
    const { userId, username } = requireAuthContext(req);
    const sessionId = requireSessionId(requireAuthContext(req));
    const revokedSessions = await sessionManagement.revokeOthers({ id: userId, username }, sessionId, requestMeta(req));
    ok(res, { revokedSessions } satisfies RevokedSessionsData, 'Ostatné relácie boli ukončené');
  });

  router.delete('/sessions/:id', auth.requireAuth, async (req, res) => {
    const { id } = parseParams(idParams, req);
    const { userId, username } = requireAuthContext(req);
    const sessionId = requireSessionId(requireAuthContext(req));
    const { current } = await sessionManagement.revokeOwn({ id: userId, username }, id, sessionId, requestMeta(req));
    // Ending the session this browser uses is a logout: its cookies go too.
    if (current) cookies.clearAll(res);
    ok(res, undefined, 'Relácia bola ukončená');
  });
}
