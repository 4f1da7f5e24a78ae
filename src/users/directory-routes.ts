import { Router } from 'express';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import { ok } from '../http/respond.js';
import { parseQuery } from '../http/validate.js';
import { listResult } from '../shared/pagination.js';
import { directoryQuery } from './user-schemas.js';
import type { UserDirectory } from './user-directory.js';
import type { DirectoryData, DirectoryUserResponse } from './user-responses.js';

/** /api/users: the colleague directory, for every signed-in (onboarded) user. */
export function createDirectoryRouter(services: { userDirectory: UserDirectory }, auth: AuthMiddleware): Router {
  const router = Router();
  router.get('/directory', auth.requireAuth, async (req, res) => {
    const query = parseQuery(directoryQuery, req);
    const { items, total } = await services.userDirectory.list(query);
    const users: DirectoryUserResponse[] = items;
    const { pagination } = listResult(users, query, total);
    ok(res, { items: users, users, pagination } satisfies DirectoryData, 'Zoznam kolegov');
  });
  return router;
}
