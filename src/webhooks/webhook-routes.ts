import { Router, type Response } from 'express';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import { requestMeta, requireAuthContext } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseBody, parseParams, parseQuery } from '../http/validate.js';
import { listResult } from '../shared/pagination.js';
import { idParams, paginationQuery } from '../shared/validation.js';
import { presentAttempt, presentWebhook } from './webhook-presenter.js';
import type { CreatedWebhookData, WebhookData } from './webhook-responses.js';
import { createWebhookBody, updateWebhookBody } from './webhook-schemas.js';
import type { WebhookService } from './webhook-service.js';

/** A secret is in the answer: no proxy or browser cache may keep it. */
function noStore(res: Response): void {
  res.set('Cache-Control', 'no-store');
}

/** /api/admin/webhooks: administrators only (401 anonymous, 403 members), mounted before /api/admin. */
export function createWebhookRouter(services: { webhooks: WebhookService }, auth: AuthMiddleware): Router {
  const { webhooks } = services;
  const router = Router();
  router.use(auth.requireAuth, auth.requireRole('admin'));
  const actor = (req: Parameters<typeof requireAuthContext>[0]) => {
    const { userId, username } = requireAuthContext(req);
    return { id: userId, username };
  };

  router.post('/', async (req, res) => {
    const body = parseBody(createWebhookBody, req);
    const { webhook, secret } = await webhooks.create(body, actor(req), requestMeta(req));
    noStore(res);
    ok(res, { webhook: presentWebhook(webhook), secret } satisfies CreatedWebhookData, 'Webhook vytvorený', 201);
  });

  router.get('/', async (req, res) => {
    const { page, limit } = parseQuery(paginationQuery, req);
    const { items, total } = await webhooks.list({ page, limit });
    ok(res, listResult(items.map(presentWebhook), { page, limit }, total), 'Zoznam webhookov');
  });

  router.get('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    ok(res, { webhook: presentWebhook(await webhooks.get(id)) } satisfies WebhookData, 'Webhook');
  });

  router.patch('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const body = parseBody(updateWebhookBody, req);
    const { webhook, secret } = await webhooks.update(id, body, actor(req), requestMeta(req));
    if (secret) noStore(res);
    ok(res, { webhook: presentWebhook(webhook), ...(secret ? { secret } : {}) } satisfies WebhookData, 'Webhook upravený');
  });

  router.delete('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    await webhooks.delete(id, actor(req), requestMeta(req));
    ok(res, undefined, 'Webhook odstránený');
  });

  router.get('/:id/deliveries', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const { page, limit } = parseQuery(paginationQuery, req);
    const { items, total } = await webhooks.attempts(id, { page, limit });
    ok(res, listResult(items.map(presentAttempt), { page, limit }, total), 'Pokusy o doručenie');
  });

  return router;
}
