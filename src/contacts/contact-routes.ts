import { Router } from 'express';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import type { ExpensiveRequests } from '../http/expensive-requests.js';
import { requestMeta, requireAuthContext } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseBody, parseParams, parseQuery } from '../http/validate.js';
import { idParams } from '../shared/validation.js';
import { listResult } from '../shared/pagination.js';
import { presentContact } from './contact-presenter.js';
import type { ContactData, DeletedContactData } from './contact-responses.js';
import { createContactBody, listContactsQuery, updateContactBody } from './contact-schemas.js';
import type { ContactService } from './contact-service.js';

/** /api/contacts: the caller's own contacts only (docs/contract.md §1: admins are no exception). */
export function createContactRouter(services: { contacts: ContactService }, auth: AuthMiddleware, expensive: ExpensiveRequests): Router {
  const { contacts } = services;
  const router = Router();
  router.use(auth.requireAuth);

  router.get('/', expensive.whenSearching, async (req, res) => {
    const { page, limit, ...filter } = parseQuery(listContactsQuery, req);
    const { items, total, totalExact, hasNext } = await contacts.list(requireAuthContext(req).userId, filter, { page, limit });
    ok(res, listResult(items.map(presentContact), { page, limit }, { total, totalExact, hasNext }), 'Zoznam kontaktov');
  });

  router.post('/', async (req, res) => {
    const body = parseBody(createContactBody, req);
    const contact = await contacts.create(requireAuthContext(req).userId, body, requestMeta(req));
    ok(res, { contact: presentContact(contact) } satisfies ContactData, 'Kontakt bol vytvorený', 201);
  });

  router.get('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const contact = await contacts.get(requireAuthContext(req).userId, id);
    ok(res, { contact: presentContact(contact) } satisfies ContactData, 'Kontakt');
  });

  router.patch('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const changes = parseBody(updateContactBody, req);
    const contact = await contacts.update(requireAuthContext(req).userId, id, changes);
    ok(res, { contact: presentContact(contact) } satisfies ContactData, 'Kontakt bol upravený');
  });

  router.delete('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const result = await contacts.delete(requireAuthContext(req).userId, id, requestMeta(req));
    ok(res, { id, deletedEmails: result.deletedEmails } satisfies DeletedContactData, 'Kontakt bol vymazaný');
  });

  return router;
}
