import fc from 'fast-check';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createUser } from '../support/factories.js';
import { badCredentials, credentials, describeFuzz, type SuiteRoute } from './support/fuzz.js';
import { forgedTokens } from './support/arbitraries.js';
import type { World } from './support/world.js';

/**
 * Routes that end or rotate sessions get sessions of their own: a successful logout, refresh or
 * password change must not take the world's sessions away from the other routes.
 */
interface Spares {
  subject: { session: TestSession; password: string };
  logouts: TestSession[];
  refreshes: TestSession[];
}
let spares: Spares;

const SUBJECT_PASSWORD = 'Subject-Pass-For-Fuzz-2026';

const subjectOrWorse = (w: World) => fc.oneof({ weight: 3, arbitrary: fc.constant({ Authorization: spares.subject.session.bearer }) }, { weight: 2, arbitrary: badCredentials(w) });

const routes: SuiteRoute[] = [
  {
    method: 'POST',
    path: '/api/auth/login',
    validBody: (w) => ({ username: w.owner.fixture.username, password: w.owner.password, rememberMe: true }),
    runs: 400,
    expectAccepted: true,
  },
  {
    method: 'POST',
    path: '/api/auth/refresh',
    auth: (w) =>
      fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...spares.refreshes).map((s) => ({ Cookie: `refreshToken=${s.refreshToken}` })) },
        { weight: 1, arbitrary: fc.constant({ Cookie: `refreshToken=${w.owner.session.accessToken}` }) },
        { weight: 1, arbitrary: fc.constantFrom(...forgedTokens({ userId: w.owner.id, sessionId: w.owner.session.sessionId })).map((t) => ({ Cookie: `refreshToken=${t}` })) },
        { weight: 1, arbitrary: fc.constantFrom('refreshToken=', 'refreshToken=j%3A%5B1%5D', `refreshToken=${'y'.repeat(6000)}`, 'refreshToken=%ZZ').map((c) => ({ Cookie: c })) },
        { weight: 2, arbitrary: credentials(w) },
      ),
    runs: 300,
    expectAccepted: true,
  },
  { method: 'GET', path: '/api/auth/session', runs: 200, expectAccepted: true },
  { method: 'GET', path: '/api/auth/me', runs: 200, expectAccepted: true },
  { method: 'POST', path: '/api/auth/skip-email', runs: 200, expectAccepted: true },
  // The fuzzing app's mail server is down: credentials that pass validation get the documented 502.
  {
    method: 'POST',
    path: '/api/auth/link-email',
    validBody: () => ({ email: 'alice@example.test', emailPassword: 'alicepw' }),
    runs: 250,
    allowUpstream: true,
  },
  {
    method: 'POST',
    path: '/api/auth/set-password',
    validBody: () => ({ newPassword: 'Uplne-Nove-Heslo-2026', currentPassword: SUBJECT_PASSWORD }),
    auth: subjectOrWorse,
    runs: 300,
    expectAccepted: true,
  },
  {
    method: 'POST',
    path: '/api/auth/logout',
    auth: (w) =>
      fc.oneof(
        { weight: 2, arbitrary: fc.constantFrom(...spares.logouts).chain((s) => fc.constantFrom<Record<string, string>>({ Authorization: s.bearer }, { Cookie: s.cookie })) },
        { weight: 3, arbitrary: badCredentials(w) },
      ),
    runs: 250,
    expectAccepted: true,
  },
];

describeFuzz('hardening: fuzzing /api/auth', routes, {
  prepare: async () => {
    const subject = await createUser({ password: SUBJECT_PASSWORD, emailSetupSkipped: true });
    const leaver = await createUser({ password: 'Leaver-Pass-For-Fuzz-2026' });
    const refresher = await createUser({ password: 'Refresher-Pass-For-Fuzz-2026' });
    const many = (n: number, fixture: typeof leaver) => Promise.all(Array.from({ length: n }, () => sessionFor(fixture)));
    spares = { subject: { session: await sessionFor(subject), password: SUBJECT_PASSWORD }, logouts: await many(25, leaver), refreshes: await many(10, refresher) };
  },
});
