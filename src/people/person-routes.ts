import { Router } from 'express';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import type { ExpensiveRequests } from '../http/expensive-requests.js';
import { requestMeta, requireAuthContext } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseBody, parseParams, parseQuery } from '../http/validate.js';
import { listResult } from '../shared/pagination.js';
import { idParams } from '../shared/validation.js';
import { presentPerson } from './person-presenter.js';
import type { PersonData } from './person-responses.js';
import { listPeopleQuery, mergePeopleBody, updatePersonBody } from './person-schemas.js';
import type { PersonService } from './person-service.js';

/** /api/people: one record per correspondent, as the caller sees them (docs/contract.md, "People"). */
export function createPersonRouter(services: { people: PersonService }, auth: AuthMiddleware, expensive: ExpensiveRequests): Router {
  const { people } = services;
  const router = Router();
  router.use(auth.requireAuth);

  router.get('/', expensive.whenSearching, async (req, res) => {
    const { page, limit, ...filter } = parseQuery(listPeopleQuery, req);
    const { items, total, totalExact, hasNext } = await people.list(requireAuthContext(req).userId, filter, { page, limit });
    ok(res, listResult(items.map(presentPerson), { page, limit }, { total, totalExact, hasNext }), 'Zoznam osôb');
  });

  router.get('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const person = await people.get(requireAuthContext(req).userId, id);
    ok(res, { person: presentPerson(person) } satisfies PersonData, 'Osoba');
  });

  router.patch('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const changes = parseBody(updatePersonBody, req);
    const person = await people.update(requireAuthContext(req).userId, id, changes, requestMeta(req));
    ok(res, { person: presentPerson(person) } satisfies PersonData, 'Osoba bola upravená');
  });

  router.post('/:id/merge', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const { sourceIds } = parseBody(mergePeopleBody, req);
    const person = await people.merge(requireAuthContext(req).userId, id, sourceIds, requestMeta(req));
    ok(res, { person: presentPerson(person) } satisfies PersonData, 'Osoby boli zlúčené');
  });

  return router;
}
