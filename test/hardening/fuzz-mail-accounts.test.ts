import { describeFuzz, type SuiteRoute } from './support/fuzz.js';

/**
 * The fuzzing app's mail server is unreachable: credentials that pass validation get the documented
 * 502 in the envelope (allowUpstream) and nothing is stored. A successful PATCH or "sync now" starts
 * a sync in the background, which the suite lets finish before the next database snapshot.
 */
const routes: SuiteRoute[] = [
  { method: 'GET', path: '/api/email-accounts', queryKeys: ['page', 'limit'], runs: 200, expectAccepted: true },
  {
    method: 'POST',
    path: '/api/email-accounts',
    validBody: () => ({ email: 'fuzz.box@example.test', emailPassword: 'some-password' }),
    runs: 250,
    allowUpstream: true,
  },
  {
    method: 'PATCH',
    path: '/api/email-accounts/:id',
    recordOf: (a) => a.account.id,
    validBody: () => ({ isActive: true, isPrimary: true }),
    runs: 250,
    allowUpstream: true,
    expectAccepted: true,
  },
  { method: 'POST', path: '/api/email-accounts/:id/sync', recordOf: (a) => a.account.id, runs: 150, expectAccepted: true },
  // Sharing (only the owner shares; the other members of the world get 404, admins included).
  { method: 'GET', path: '/api/email-accounts/:id/users', recordOf: (a) => a.account.id, queryKeys: ['page', 'limit'], runs: 150, expectAccepted: true },
  {
    method: 'POST',
    path: '/api/email-accounts/:id/share',
    recordOf: (a) => a.account.id,
    validBody: (w) => ({ userId: w.victims[0], role: 'editor', canRead: true, canSend: false }),
    runs: 200,
    expectAccepted: true,
  },
  { method: 'DELETE', path: '/api/email-accounts/:id', recordOf: (a) => a.account.id, runs: 150 },
];

describeFuzz('hardening: fuzzing /api/email-accounts', routes, {
  afterSuccess: (bench) => bench.ctx.services.mailSync.whenIdle(),
});
