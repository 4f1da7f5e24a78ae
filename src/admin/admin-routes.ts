import { Router, type Response } from 'express';
import type { AuditQueryService } from '../audit/audit-query-service.js';
import type { UserAdminService } from '../users/user-admin-service.js';
import type { UserLifecycleService } from '../users/user-lifecycle-service.js';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import { requestMeta, requireAuthContext } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseBody, parseParams, parseQuery } from '../http/validate.js';
import { idParams } from '../shared/validation.js';
import { listResult } from '../shared/pagination.js';
import { presentEmailAccount } from '../email-accounts/email-account-presenter.js';
import { addSharingRoutes, type SharingRouteDeps } from '../email-accounts/sharing-routes.js';
import { presentAdminUser, presentAuditLog } from './admin-presenters.js';
import type { AdminUserData, CreatedUserData, TemporaryPasswordData, UserStatusData } from './admin-responses.js';
import { auditLogQuery, createUserBody, deleteUserQuery, listUsersQuery, updateUserBody } from './admin-schemas.js';

/** A temporary password is in this response: no proxy or browser cache may keep it. */
function noStore(res: Response): void {
  res.set('Cache-Control', 'no-store');
}

/** /api/admin: user management, email-account shares and the audit trail, for admins only (401 anonymous, 403 members). */
export interface AdminRouteDeps extends SharingRouteDeps {
  userAdmin: UserAdminService;
  auditQuery: AuditQueryService;
  userLifecycle: UserLifecycleService;
}

export function createAdminRouter(services: AdminRouteDeps, auth: AuthMiddleware): Router {
  const router = Router();
  router.use(auth.requireAuth, auth.requireRole('admin'));

  router.post('/users', async (req, res) => {
    const input = parseBody(createUserBody, req);
    const { user, temporaryPassword, emailAccount } = await services.userAdmin.create(input, requestMeta(req));
    noStore(res);
    const data: CreatedUserData = { user: presentAdminUser(user), temporaryPassword, ...(emailAccount ? { emailAccount: presentEmailAccount(emailAccount) } : {}) };
    ok(res, data, 'Používateľ vytvorený', 201);
  });

  router.get('/users', async (req, res) => {
    const query = parseQuery(listUsersQuery, req);
    const { items, total } = await services.userAdmin.list(query);
    ok(res, listResult(items.map(presentAdminUser), query, total), 'Zoznam používateľov');
  });

  router.get('/users/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    ok(res, { user: presentAdminUser(await services.userAdmin.get(id)) } satisfies AdminUserData, 'Používateľ');
  });

  router.patch('/users/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const changes = parseBody(updateUserBody, req);
    const user = await services.userAdmin.update(id, changes, requestMeta(req));
    ok(res, { user: presentAdminUser(user) } satisfies AdminUserData, 'Používateľ upravený');
  });

  router.post('/users/:id/reset-password', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const { temporaryPassword } = await services.userAdmin.resetTemporaryPassword(id, requestMeta(req));
    noStore(res);
    ok(res, { temporaryPassword } satisfies TemporaryPasswordData, 'Dočasné heslo vygenerované');
  });

  router.delete('/users/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    // Shared email accounts the user owns: handed to newOwnerId, or deleted only when asked (else 409).
    const choice = parseQuery(deleteUserQuery, req);
    await services.userAdmin.delete(id, requestMeta(req), choice);
    ok(res, undefined, 'Používateľ odstránený');
  });

  // Disabling a leaver keeps their data; deleting (above) removes it. An admin cannot disable themselves.
  router.post('/users/:id/disable', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const { user, changed, revokedSessions } = await services.userLifecycle.disable(id, requestMeta(req), requireAuthContext(req).userId);
    const data: UserStatusData = { user: presentAdminUser(user), changed, revokedSessions };
    ok(res, data, changed ? 'Používateľ zablokovaný' : 'Používateľ už je zablokovaný');
  });

  router.post('/users/:id/enable', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const { user, changed, revokedSessions } = await services.userLifecycle.enable(id, requestMeta(req));
    const data: UserStatusData = { user: presentAdminUser(user), changed, revokedSessions };
    ok(res, data, changed ? 'Používateľ odblokovaný' : 'Používateľ nie je zablokovaný');
  });

  // An administrator manages the shares of any email account (the same rules for the owner row).
  addSharingRoutes(router, services, (req) => ({ kind: 'admin', userId: requireAuthContext(req).userId }), '/email-accounts');

  router.get('/audit-logs', async (req, res) => {
    const query = parseQuery(auditLogQuery, req);
    const { items, total } = await services.auditQuery.list(query);
    ok(res, listResult(items.map(presentAuditLog), query, total), 'Záznamy auditu');
  });

  return router;
}
