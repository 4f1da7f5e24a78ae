import { Router } from 'express';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import { requestMeta, requireAuthContext } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseBody, parseParams, parseQuery } from '../http/validate.js';
import { listResult } from '../shared/pagination.js';
import { idParams } from '../shared/validation.js';
import { presentTask } from './task-presenter.js';
import type { TaskData } from './task-responses.js';
import { createTaskBody, listTasksQuery, updateTaskBody } from './task-schemas.js';
import type { TaskService } from './task-service.js';

/** /api/tasks: to-dos of the staff, linked to a person, a company or a conversation (docs/contract.md, "Tasks"). */
export function createTaskRouter(services: { tasks: TaskService }, auth: AuthMiddleware): Router {
  const { tasks } = services;
  const router = Router();
  router.use(auth.requireAuth);

  router.get('/', async (req, res) => {
    const { page, limit, assignee, status } = parseQuery(listTasksQuery, req);
    const { items, total } = await tasks.list(requireAuthContext(req).userId, { assignee, status }, { page, limit });
    ok(res, listResult(items.map(presentTask), { page, limit }, total), 'Zoznam úloh');
  });

  router.post('/', async (req, res) => {
    const body = parseBody(createTaskBody, req);
    const task = await tasks.create(requireAuthContext(req).userId, body, requestMeta(req));
    ok(res, { task: presentTask(task) } satisfies TaskData, 'Úloha bola vytvorená', 201);
  });

  router.get('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const task = await tasks.get(requireAuthContext(req).userId, id);
    ok(res, { task: presentTask(task) } satisfies TaskData, 'Úloha');
  });

  router.patch('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const changes = parseBody(updateTaskBody, req);
    const task = await tasks.update(requireAuthContext(req).userId, id, changes, requestMeta(req));
    ok(res, { task: presentTask(task) } satisfies TaskData, 'Úloha bola zmenená');
  });

  router.delete('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    await tasks.remove(requireAuthContext(req).userId, id, requestMeta(req));
    res.status(204).end();
  });

  return router;
}
