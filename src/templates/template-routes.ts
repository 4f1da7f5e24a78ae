import { Router, type Request } from 'express';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import { requestMeta, requireAuthContext } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseBody, parseParams, parseQuery } from '../http/validate.js';
import { listResult } from '../shared/pagination.js';
import { idParams, paginationQuery } from '../shared/validation.js';
import { presentTemplate } from './template-presenter.js';
import type { RenderedTemplateData, TemplateData } from './template-responses.js';
import { createTemplateBody, renderTemplateBody, updateTemplateBody } from './template-schemas.js';
import type { TemplateCaller, TemplateService } from './template-service.js';

function callerOf(req: Request): TemplateCaller {
  const { userId, role } = requireAuthContext(req);
  return { userId, isAdmin: role === 'admin' };
}

/** /api/templates: the caller's own and every shared email template. */
export function createTemplateRouter(services: { templates: TemplateService }, auth: AuthMiddleware): Router {
  const { templates } = services;
  const router = Router();
  router.use(auth.requireAuth);

  router.get('/', async (req, res) => {
    const { page, limit } = parseQuery(paginationQuery, req);
    const caller = callerOf(req);
    const { items, total } = await templates.list(caller.userId, { page, limit });
    ok(
      res,
      listResult(
        items.map((t) => presentTemplate(t, caller)),
        { page, limit },
        total,
      ),
      'Zoznam šablón',
    );
  });

  router.post('/', async (req, res) => {
    const body = parseBody(createTemplateBody, req);
    const caller = callerOf(req);
    const created = await templates.create(caller, body, requestMeta(req));
    ok(res, { template: presentTemplate(created, caller) } satisfies TemplateData, 'Šablóna bola vytvorená', 201);
  });

  router.get('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const caller = callerOf(req);
    ok(res, { template: presentTemplate(await templates.get(caller.userId, id), caller) } satisfies TemplateData, 'Šablóna');
  });

  router.patch('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const body = parseBody(updateTemplateBody, req);
    const caller = callerOf(req);
    const updated = await templates.update(caller, id, body, requestMeta(req));
    ok(res, { template: presentTemplate(updated, caller) } satisfies TemplateData, 'Šablóna bola zmenená');
  });

  router.delete('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    await templates.remove(callerOf(req), id, requestMeta(req));
    res.status(204).end();
  });

  router.post('/:id/render', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const { contactId, personId } = parseBody(renderTemplateBody, req);
    const rendered = await templates.render(requireAuthContext(req).userId, id, personId !== undefined ? { personId } : { contactId: contactId! });
    ok(res, rendered satisfies RenderedTemplateData, 'Šablóna bola vyplnená');
  });

  return router;
}
