import { Router } from 'express';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import { requestMeta, requireAuthContext } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseBody, parseParams } from '../http/validate.js';
import { idParams } from '../shared/validation.js';
import { presentSignature } from './signature-presenter.js';
import { putSignatureBody } from './signature-schemas.js';
import type { SignatureService } from './signature-service.js';

/** /api/email-accounts/:id/signature: the caller's own signature for one mailbox (mounted before the email-accounts router). */
export function createSignatureRouter(services: { signatures: SignatureService }, auth: AuthMiddleware): Router {
  const { signatures } = services;
  const router = Router();

  router.get('/:id/signature', auth.requireAuth, async (req, res) => {
    const { id } = parseParams(idParams, req);
    ok(res, presentSignature(await signatures.get(requireAuthContext(req).userId, id)), 'Podpis');
  });

  router.put('/:id/signature', auth.requireAuth, async (req, res) => {
    const { id } = parseParams(idParams, req);
    const body = parseBody(putSignatureBody, req);
    ok(res, presentSignature(await signatures.set(requireAuthContext(req).userId, id, body, requestMeta(req))), 'Podpis bol uložený');
  });

  return router;
}
