import { Router } from 'express';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import type { ExpensiveRequests } from '../http/expensive-requests.js';
import { requestMeta } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseBody } from '../http/validate.js';
import type { PrivacyService } from './privacy-service.js';
import type { ErasureData } from './privacy-responses.js';
import { privacyRequestBody } from './privacy-schemas.js';

/** /api/admin/privacy: access and erasure requests of the people staff write with (admins only). */
export function createPrivacyRouter(services: { privacy: PrivacyService }, auth: AuthMiddleware, expensive: ExpensiveRequests): Router {
  const router = Router();
  router.use(auth.requireAuth, auth.requireRole('admin'));

  router.post('/export', expensive.always, async (req, res) => {
    const { email } = parseBody(privacyRequestBody, req);
    const address = services.privacy.address(email);
    res.status(200);
    res.setHeader('Content-Type', 'application/zip');
    res.setHeader('Content-Disposition', `attachment; filename="personal-data-${new Date().toISOString().slice(0, 10)}.zip"`);
    res.setHeader('Cache-Control', 'private, no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    try {
      // The response ends only once the export's audit record is written: a client that has the whole
      // zip finds it in the audit log, and an export that could not be audited is cut off below.
      await services.privacy.export(address, res, requestMeta(req), { end: false });
      res.end();
    } catch (err) {
      // After the first bytes nothing can be said in the envelope: the connection is cut instead, so
      // the client never takes a truncated zip for a whole one.
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.removeHeader('Content-Disposition');
      res.removeHeader('Content-Type');
      throw err;
    }
  });

  router.post('/erase', async (req, res) => {
    const { email } = parseBody(privacyRequestBody, req);
    const erasure = await services.privacy.erase(email, requestMeta(req));
    ok(res, { erasure } satisfies ErasureData, 'Osobné údaje vymazané');
  });

  return router;
}
