import { Router } from 'express';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import { requireAuthContext } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseBody, parseParams, parseQuery } from '../http/validate.js';
import { idParams } from '../shared/validation.js';
import { listResult } from '../shared/pagination.js';
import { presentEmail, presentEmailSummary } from './email-presenter.js';
import type { EmailData, MarkReadData } from './email-responses.js';
import { contactIdParams, listEmailsQuery, threadQuery, updateEmailBody } from './email-schemas.js';
import type { EmailService } from './email-service.js';

/** /api/emails: the caller's own emails only (design.md: admins are no exception). */
export function createEmailRouter(services: { emails: EmailService }, auth: AuthMiddleware): Router {
  const { emails } = services;
  const router = Router();
  router.use(auth.requireAuth);

  router.get('/', async (req, res) => {
    const { page, limit, to, ...filter } = parseQuery(listEmailsQuery, req);
    const { items, total } = await emails.list(requireAuthContext(req).userId, { ...filter, before: to }, { page, limit });
    ok(res, listResult(items.map(presentEmailSummary), page, limit, total), 'Zoznam emailov');
  });

  // Before /:id routes so "contact" is never taken for an email id.
  router.post('/contact/:contactId/read', async (req, res) => {
    const { contactId } = parseParams(contactIdParams, req);
    const { updated, pushed, pending } = await emails.markContactRead(requireAuthContext(req).userId, contactId);
    ok(res, { updated, pushed, pending } satisfies MarkReadData, 'Emaily kontaktu boli označené ako prečítané');
  });

  router.get('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const email = await emails.get(requireAuthContext(req).userId, id);
    ok(res, { email: presentEmail(email) } satisfies EmailData, 'Email');
  });

  router.get('/:id/thread', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const { page, limit } = parseQuery(threadQuery, req);
    const { items, total } = await emails.thread(requireAuthContext(req).userId, id, { page, limit });
    ok(res, listResult(items.map(presentEmail), page, limit, total), 'Vlákno emailov');
  });

  router.patch('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const { isRead } = parseBody(updateEmailBody, req);
    const email = await emails.setRead(requireAuthContext(req).userId, id, isRead);
    ok(res, { email: presentEmail(email) } satisfies EmailData, isRead ? 'Email bol označený ako prečítaný' : 'Email bol označený ako neprečítaný');
  });

  return router;
}
