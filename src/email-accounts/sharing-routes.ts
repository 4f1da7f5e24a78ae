import type { Request, Router } from 'express';
import { requestMeta } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseBody, parseParams, parseQuery } from '../http/validate.js';
import { listResult } from '../shared/pagination.js';
import { presentMember } from './email-account-presenter.js';
import { accountIdParams, changeShareBody, listMembersQuery, memberParams, shareBody } from './email-account-schemas.js';
import type { EmailAccountSharingService, SharingActor } from './email-account-sharing-service.js';

export interface SharingRouteDeps {
  emailAccountSharing: EmailAccountSharingService;
}

/**
 * The sharing endpoints of docs/contract.md §4.3, under `prefix` of the given router:
 * /api/email-accounts (the caller acts as a member: the owner shares, a member may leave) and
 * /api/admin/email-accounts (an administrator, for any account). The actor decides the rules.
 */
export function addSharingRoutes(router: Router, services: SharingRouteDeps, actorOf: (req: Request) => SharingActor, prefix = ''): void {
  const sharing = services.emailAccountSharing;

  router.get(`${prefix}/:accountId/users`, async (req, res) => {
    const { accountId } = parseParams(accountIdParams, req);
    const { page, limit } = parseQuery(listMembersQuery, req);
    const { items, total } = await sharing.members(actorOf(req), accountId, { page, limit });
    ok(res, listResult(items.map(presentMember), { page, limit }, total), 'Používatelia emailového účtu');
  });

  router.post(`${prefix}/:accountId/share`, async (req, res) => {
    const { accountId } = parseParams(accountIdParams, req);
    const body = parseBody(shareBody, req);
    const member = await sharing.share(actorOf(req), accountId, body, requestMeta(req));
    ok(res, { member: presentMember(member) }, 'Emailový účet bol zdieľaný', 201);
  });

  router.patch(`${prefix}/:accountId/share/:userId`, async (req, res) => {
    const { accountId, userId } = parseParams(memberParams, req);
    const changes = parseBody(changeShareBody, req);
    const member = await sharing.change(actorOf(req), accountId, userId, changes, requestMeta(req));
    ok(res, { member: presentMember(member) }, changes.role === 'owner' ? 'Vlastníctvo emailového účtu bolo odovzdané' : 'Zdieľanie bolo upravené');
  });

  router.delete(`${prefix}/:accountId/share/:userId`, async (req, res) => {
    const { accountId, userId } = parseParams(memberParams, req);
    await sharing.unshare(actorOf(req), accountId, userId, requestMeta(req));
    ok(res, undefined, 'Zdieľanie bolo zrušené');
  });
}
