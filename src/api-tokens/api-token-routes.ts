import { Router } from 'express';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import { requestMeta, requireAuthContext } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseBody, parseParams, parseQuery } from '../http/validate.js';
import { listResult } from '../shared/pagination.js';
import { idParams, paginationQuery } from '../shared/validation.js';
import { presentApiToken } from './api-token-presenter.js';
import type { CreatedApiTokenData } from './api-token-responses.js';
import { createApiTokenBody } from './api-token-schemas.js';
import type { ApiTokenService } from './api-token-service.js';

/**
 * /api/tokens: the caller's personal API tokens. Signed-in users with their own password only (a
 * temporary password: 403), and never with an API token: no path here is in TOKEN_PATHS, so a
 * leaked token cannot mint or list tokens.
 */
export function createApiTokenRouter(services: { apiTokens: ApiTokenService }, auth: AuthMiddleware): Router {
  const { apiTokens } = services;
  const router = Router();
  router.use(auth.requireAuth);

  router.post('/', async (req, res) => {
    const body = parseBody(createApiTokenBody, req);
    const { userId, username, role } = requireAuthContext(req);
    const { token, apiToken } = await apiTokens.create({ id: userId, username, role }, body, requestMeta(req));
    ok(res, { token, apiToken: presentApiToken(apiToken) } satisfies CreatedApiTokenData, 'API token vytvorený', 201);
  });

  router.get('/', async (req, res) => {
    const { page, limit } = parseQuery(paginationQuery, req);
    const { items, total } = await apiTokens.list(requireAuthContext(req).userId, { page, limit });
    ok(res, listResult(items.map(presentApiToken), { page, limit }, total), 'Zoznam API tokenov');
  });

  router.delete('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    await apiTokens.revoke(id, requireAuthContext(req).userId, requestMeta(req));
    ok(res, undefined, 'API token zrušený');
  });

  return router;
}
