import { Router } from 'express';
import type { EmailAccountService } from './email-account-service.js';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import { requestMeta, requireAuthContext } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseBody, parseParams, parseQuery } from '../http/validate.js';
import { idParams } from '../shared/validation.js';
import { listResult } from '../shared/pagination.js';
import { presentEmailAccount } from './email-account-presenter.js';
import type { EmailAccountData } from './email-account-responses.js';
import { createEmailAccountBody, listEmailAccountsQuery, updateEmailAccountBody } from './email-account-schemas.js';
import { addSharingRoutes, type SharingRouteDeps } from './sharing-routes.js';

export interface EmailAccountRouteDeps extends SharingRouteDeps {
  emailAccounts: EmailAccountService;
}

/**
 * /api/email-accounts: the caller's own email accounts and those shared with them, each with the
 * caller's role (an account not shared with them is a 404, like a missing one; a member without the
 * right gets a 403). Passwords go in, never out. Linking an account or fixing its credentials starts
 * a sync at once (EmailAccountService does, for every caller). Sharing: sharing-routes.ts.
 */
export function createEmailAccountRouter(services: EmailAccountRouteDeps, auth: AuthMiddleware): Router {
  const router = Router();
  router.use(auth.requireAuth);

  router.get('/', async (req, res) => {
    const { page, limit } = parseQuery(listEmailAccountsQuery, req);
    const accounts = await services.emailAccounts.list(requireAuthContext(req).userId);
    const items = accounts.slice((page - 1) * limit, page * limit).map(presentEmailAccount);
    ok(res, listResult(items, { page, limit }, accounts.length), 'Zoznam emailových účtov');
  });

  router.post('/', async (req, res) => {
    const body = parseBody(createEmailAccountBody, req);
    const { userId } = requireAuthContext(req);
    const account = await services.emailAccounts.add(userId, body, requestMeta(req));
    const data: EmailAccountData = { emailAccount: presentEmailAccount(await services.emailAccounts.get(userId, account.id)) };
    ok(res, data, 'Emailový účet pridaný a overený', 201);
  });

  router.patch('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const changes = parseBody(updateEmailAccountBody, req);
    const { userId } = requireAuthContext(req);
    const account = await services.emailAccounts.update(userId, id, changes, requestMeta(req));
    ok(res, { emailAccount: presentEmailAccount(account) } satisfies EmailAccountData, 'Emailový účet upravený');
  });

  router.delete('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    await services.emailAccounts.remove(requireAuthContext(req).userId, id, requestMeta(req));
    ok(res, undefined, 'Emailový účet odstránený');
  });

  router.post('/:id/sync', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const account = await services.emailAccounts.syncNow(requireAuthContext(req).userId, id);
    const data: EmailAccountData = { emailAccount: presentEmailAccount(account) };
    ok(res, data, 'Synchronizácia spustená', 202);
  });

  addSharingRoutes(router, services, (req) => ({ kind: 'member', userId: requireAuthContext(req).userId }));

  return router;
}
