import { Router, type ErrorRequestHandler, type NextFunction, type Request, type Response } from 'express';
import type { EmailAccountService } from '../email-accounts/email-account-service.js';
import type { AuthService } from './auth-service.js';
import type { SessionService } from './session-service.js';
import { AuditActions } from '../audit/audit-service.js';
import { AuthenticationError } from '../errors/app-errors.js';
import { requestMeta, requireAuthContext, type AuthContext } from '../http/auth-context.js';
import { fromFrameworkError } from '../http/error-handler.js';
import { ok } from '../http/respond.js';
import { parseBody } from '../http/validate.js';
import { presentEmailAccount } from '../email-accounts/email-account-presenter.js';
import { presentUser } from '../users/user-presenter.js';
import { requireSessionId, type AuthMiddleware } from './auth-middleware.js';
import type { LinkEmailData, LoginData, MeData, RefreshData, SessionData, UserStateData } from './auth-responses.js';
import { linkEmailSchema, loginSchema, setPasswordSchema } from './auth-schemas.js';
import { onboardingOf, type UserState } from './auth-service.js';
import type { AuthCookies } from './cookies.js';
import { readKnownDevice, setKnownDevice } from './device-cookie.js';
import { REFRESH_INVALID } from './auth-messages.js';
import type { SessionManagement } from './session-management.js';
import { addSessionRoutes } from './session-routes.js';
import { tokenExpiresAt } from './token-service.js';

const REFRESH_MISSING = 'Refresh token nie je k dispozícii';

/** What the auth routes need, and nothing more. */
export interface AuthRouteDeps {
  auth: AuthService;
  sessions: SessionService;
  emailAccounts: Pick<EmailAccountService, 'add' | 'get'>;
  sessionManagement: SessionManagement;
}

/** docs/contract.md §4.1, mounted at /api/auth. */
export function createAuthRouter(services: AuthRouteDeps, auth: AuthMiddleware, cookies: AuthCookies): Router {
  const router = Router();

  // Every answer is Cache-Control: no-store (set in http-app.ts, before the CSRF check and the body parser).

  router.post('/login', async (req, res) => {
    let body;
    try {
      body = parseBody(loginSchema, req);
    } catch (err) {
      // A malformed login is a failed attempt too (docs/contract.md §4.1 rule 2), throttled before it is audited.
      const username = (req.body as { username?: unknown } | undefined)?.username;
      return services.auth.rejectMalformedLogin(typeof username === 'string' ? username : null, err as Error, requestMeta(req));
    }
    const result = await services.auth.login({ ...body, deviceToken: readKnownDevice(req) }, requestMeta(req));
    setKnownDevice(res, result.deviceToken, cookies.production);
    cookies.setAccess(res, result.accessToken);
    // Without rememberMe no refresh cookie; a stale one from an earlier login on this browser must not outlive it.
    if (body.rememberMe) cookies.setRefresh(res, result.refreshToken);
    else cookies.clearRefresh(res);
    const { accessToken, refreshToken, needsPasswordChange, needsEmailSetup } = result;
    const data: LoginData = {
      user: presentUser(result.user),
      tokens: { accessToken, refreshToken },
      accessTokenExpiresAt: tokenExpiresAt(accessToken),
      ...(body.rememberMe ? { refreshTokenExpiresAt: tokenExpiresAt(refreshToken) } : {}),
      needsPasswordChange,
      needsEmailSetup,
    };
    ok(res, data, 'Prihlásenie úspešné');
  });

  // Reads only the refreshToken cookie: a refresh token never travels in a header or body to this endpoint.
  router.post('/refresh', async (req, res) => {
    const token = cookies.refresh(req);
    if (!token) {
      // Nothing to refresh with: the access cookie (expired, or about to) goes too, so the browser
      // is plainly logged out instead of holding half a session.
      cookies.clearAll(res);
      throw new AuthenticationError(REFRESH_MISSING, 'refresh_token_missing');
    }
    let result;
    try {
      result = await services.sessions.refresh(token, requestMeta(req));
    } catch (err) {
      // Bad, expired, revoked or reused token, or the user is gone. A database outage is not the token's
      // fault: it stays a 503 and keeps the cookies, so an outage does not log everybody out.
      if (err instanceof AuthenticationError) {
        cookies.clearAll(res);
        throw new AuthenticationError(REFRESH_INVALID, 'refresh_token_invalid');
      }
      throw err;
    }
    cookies.setAccess(res, result.accessToken);
    // Absent when a parallel tab rotated the token a moment ago: that tab's response carries the new one.
    // A session without rememberMe ends with its access token: it never gets the 7-day cookie (its
    // client keeps the rotated token from data.refreshToken, as from login's tokens.refreshToken).
    const rotated = result.refreshToken;
    if (rotated && result.session.rememberMe) cookies.setRefresh(res, rotated);
    const data: RefreshData = {
      accessToken: result.accessToken,
      accessTokenExpiresAt: tokenExpiresAt(result.accessToken),
      ...(rotated ? { refreshToken: rotated, refreshTokenExpiresAt: tokenExpiresAt(rotated) } : {}),
    };
    ok(res, data, 'Token obnovený');
  });

  router.post('/set-password', auth.requireAuthDuringOnboarding, async (req, res) => {
    const body = parseBody(setPasswordSchema, req);
    const result = await services.auth.setPassword(requireAuthContext(req).userId, requireAuthContext(req).sessionId, body, requestMeta(req));
    ok(res, presentState(result), 'Heslo úspešne nastavené');
  });

  router.post('/link-email', auth.requireAuth, async (req, res) => {
    const body = parseBody(linkEmailSchema, req);
    const account = await services.emailAccounts.add(requireAuthContext(req).userId, body, requestMeta(req), {
      auditAction: AuditActions.emailLink,
    });
    const emailAccount = presentEmailAccount(await services.emailAccounts.get(account.userId, account.id));
    // The onboarding flags after the step, as skip-email answers them: the frontend routes on without asking /me.
    const state = await services.auth.onboardingState(requireAuthContext(req).user);
    const data: LinkEmailData = { email: account.email, accountId: account.jmapAccountId, emailAccount, ...state };
    ok(res, data, 'Email účet úspešne pripojený a overený');
  });

  router.post('/skip-email', auth.requireAuth, async (req, res) => {
    const result = await services.auth.skipEmail(requireAuthContext(req).userId, requestMeta(req));
    ok(res, presentState(result), 'Email setup preskočený');
  });

  router.post('/logout', async (req, res) => {
    let caller;
    try {
      caller = await logoutCaller(req);
    } catch (err) {
      // No session to end: the browser still ends up without credentials. A database outage keeps
      // them (the logout can be tried again).
      if (err instanceof AuthenticationError) cookies.clearAll(res);
      throw err;
    }
    await services.auth.logout(caller.user, caller.sessionId, requestMeta(req));
    cookies.clearAll(res);
    ok(res, undefined, 'Odhlásenie úspešné');
  });

  /**
   * The session a logout ends: the access token's, or, when that is missing or expired, the one the
   * refresh cookie names (a tab reopened after an hour still logs out for real). Neither: 401.
   */
  async function logoutCaller(req: Request): Promise<{ user: AuthContext['user']; sessionId: string }> {
    try {
      req.auth = await auth.authenticate(req);
      return { user: req.auth.user, sessionId: requireSessionId(req.auth) };
    } catch (err) {
      const token = cookies.refresh(req);
      const named = err instanceof AuthenticationError && token ? await services.sessions.sessionOfRefreshToken(token) : null;
      if (!named) throw err;
      const { user, sessionId } = named;
      // Only the logout and its audit record read this context: onboarding state is never answered from it.
      req.auth = { userId: user.id, username: user.username, role: user.role, sessionId, user, hasActiveEmailAccount: false };
      return named;
    }
  }

  // docs/contract.md §3: a reloaded frontend learns where the user is in onboarding from these two.
  router.get('/session', auth.requireAuthDuringOnboarding, async (req, res) => {
    const { user, hasActiveEmailAccount } = requireAuthContext(req);
    ok(res, { user: presentUser(user), authenticated: true, ...onboardingOf(user, hasActiveEmailAccount) } satisfies SessionData, 'Relácia je platná');
  });

  router.get('/me', auth.requireAuthDuringOnboarding, async (req, res) => {
    const { user, hasActiveEmailAccount } = requireAuthContext(req);
    ok(res, { user: presentUser(user), ...onboardingOf(user, hasActiveEmailAccount) } satisfies MeData, 'Používateľ načítaný');
  });

  addSessionRoutes(router, services, auth, cookies);

  return router;
}

/**
 * A login whose body never became one (malformed JSON, too large, a charset it cannot read) is a
 * failed attempt too: throttled and audited like any malformed login (docs/contract.md §4.1 rule 2),
 * then answered as before. An error handler beside the body parser (http-app.ts): errors skip routers.
 */
export function auditUnreadableLogin(auth: Pick<AuthService, 'rejectMalformedLogin'>): ErrorRequestHandler {
  return (err: unknown, req: Request, _res: Response, next: NextFunction) => {
    const refused = req.method === 'POST' ? fromFrameworkError(err) : undefined;
    if (!refused || refused.statusCode >= 500 || refused.statusCode === 409) return next(err);
    auth.rejectMalformedLogin(null, refused, requestMeta(req)).catch(next);
  };
}

function presentState(state: UserState): UserStateData {
  return { user: presentUser(state.user), needsPasswordChange: state.needsPasswordChange, needsEmailSetup: state.needsEmailSetup };
}
