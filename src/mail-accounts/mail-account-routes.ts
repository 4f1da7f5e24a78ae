import { Router } from 'express';
import type { Services } from '../app/services.js';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import { ConflictError } from '../errors/app-errors.js';
import { requestMeta, requireAuthContext } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { idParams, listResult, parseBody, parseParams, parseQuery } from '../http/validate.js';
import { presentMailAccount } from './mail-account-presenter.js';
import { createMailAccountBody, listMailAccountsQuery, updateMailAccountBody } from './mail-account-schemas.js';

type MailAccountServices = Pick<Services, 'mailAccounts' | 'mailSync'>;

/**
 * /api/email-accounts: the caller's own mail accounts (another user's id is a 404, like a missing
 * one). Passwords go in, never out. Linking an account or fixing its credentials starts a sync at once.
 */
export function createMailAccountRouter(services: MailAccountServices, auth: AuthMiddleware): Router {
  const router = Router();
  router.use(auth.requireAuth);

  router.get('/', async (req, res) => {
    const { page, limit } = parseQuery(listMailAccountsQuery, req);
    const accounts = await services.mailAccounts.list(requireAuthContext(req).userId);
    const items = accounts.slice((page - 1) * limit, page * limit).map(presentMailAccount);
    ok(res, listResult(items, page, limit, accounts.length), 'Zoznam emailových účtov');
  });

  router.post('/', async (req, res) => {
    const body = parseBody(createMailAccountBody, req);
    const { userId } = requireAuthContext(req);
    const account = await services.mailAccounts.add(userId, body, requestMeta(req));
    await services.mailSync.requestSync(account.id);
    ok(res, { account: presentMailAccount(await services.mailAccounts.get(userId, account.id)) }, 'Emailový účet pridaný a overený', 201);
  });

  router.patch('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const changes = parseBody(updateMailAccountBody, req);
    const { userId } = requireAuthContext(req);
    const account = await services.mailAccounts.update(userId, id, changes, requestMeta(req));
    if (account.isActive && (changes.email !== undefined || changes.emailPassword !== undefined || changes.isActive === true)) {
      await services.mailSync.requestSync(account.id);
    }
    ok(res, { account: presentMailAccount(account) }, 'Emailový účet upravený');
  });

  router.delete('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    await services.mailAccounts.remove(requireAuthContext(req).userId, id, requestMeta(req));
    ok(res, undefined, 'Emailový účet odstránený');
  });

  router.post('/:id/sync', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const { userId } = requireAuthContext(req);
    const account = await services.mailAccounts.get(userId, id);
    if (!account.isActive) throw new ConflictError('Emailový účet je vypnutý; zapnite ho pred synchronizáciou');
    await services.mailSync.requestSync(account.id);
    ok(res, { account: presentMailAccount(await services.mailAccounts.get(userId, id)) }, 'Synchronizácia spustená', 202);
  });

  return router;
}
