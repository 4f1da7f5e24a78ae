import { Router } from 'express';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import type { ExpensiveRequests } from '../http/expensive-requests.js';
import { requestMeta, requireAuthContext } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseBody, parseParams, parseQuery } from '../http/validate.js';
import { listResult } from '../shared/pagination.js';
import { idParams } from '../shared/validation.js';
import { presentCompany } from './company-presenter.js';
import type { CompanyData } from './company-responses.js';
import { listCompaniesQuery, updateCompanyBody } from './company-schemas.js';
import type { CompanyService } from './company-service.js';

/** /api/companies: the companies behind the contacts the caller may see (docs/contract.md, "Companies"). */
export function createCompanyRouter(services: { companies: CompanyService }, auth: AuthMiddleware, expensive: ExpensiveRequests): Router {
  const { companies } = services;
  const router = Router();
  router.use(auth.requireAuth);

  router.get('/', expensive.whenSearching, async (req, res) => {
    const { page, limit, ...filter } = parseQuery(listCompaniesQuery, req);
    const { items, total, hasNext } = await companies.list(requireAuthContext(req).userId, filter, { page, limit });
    ok(res, listResult(items.map(presentCompany), { page, limit }, { total, hasNext }), 'Zoznam firiem');
  });

  router.get('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const company = await companies.get(requireAuthContext(req).userId, id);
    ok(res, { company: presentCompany(company) } satisfies CompanyData, 'Firma');
  });

  router.patch('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const changes = parseBody(updateCompanyBody, req);
    const company = await companies.update(requireAuthContext(req).userId, id, changes, requestMeta(req));
    ok(res, { company: presentCompany(company) } satisfies CompanyData, 'Firma bola upravená');
  });

  return router;
}
