import { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import type { EmailAccountService } from '../email-accounts/email-account-service.js';
import type { SyncService } from '../sync/sync-service.js';
import type { AuthService } from './auth-service.js';
import type { SessionService } from './session-service.js';
import { AuditActions } from '../audit/audit-service.js';
import { AuthenticationError } from '../errors/app-errors.js';
import { requestMeta, requireAuthContext } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseBody } from '../http/validate.js';
import { presentUser } from '../users/user-presenter.js';
import type { AuthMiddleware } from './auth-middleware.js';
import { linkEmailSchema, loginSchema, setPasswordSchema } from './auth-schemas.js';
import type { UserState } from './auth-service.js';
import { AuthCookies, REFRESH_COOKIE } from './cookies.js';
import { readKnownDevice, setKnownDevice } from './device-cookie.js';
import { REFRESH_INVALID } from './auth-messages.js';

const REFRESH_MISSING = 'Refresh token nie je k dispozícii';

/** What the auth routes need, and nothing more. */
export interface AuthRouteDeps {
  auth: AuthService;
  sessions: SessionService;
  emailAccounts: Pick<EmailAccountService, 'add'>;
  mailSync: Pick<SyncService, 'requestSync'>;
}

/** Spec section 4.1, mounted at /api/auth. */
export function createAuthRouter(services: AuthRouteDeps, auth: AuthMiddleware, options: { production: boolean }): Router {
  const router = Router();
  const cookies = new AuthCookies(options.production);

  // Responses carry tokens and personal data: never stored by a browser or proxy cache.
  router.use((_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });

  router.post('/login', async (req, res) => {
    let body;
    try {
      body = parseBody(loginSchema, req);
    } catch (err) {
      // A malformed login is a failed attempt too (spec rule 2), throttled before it is audited.
      const username = (req.body as { username?: unknown } | undefined)?.username;
      return services.auth.rejectMalformedLogin(typeof username === 'string' ? username : null, err as Error, requestMeta(req));
    }
    const result = await services.auth.login({ ...body, deviceToken: readKnownDevice(req) }, requestMeta(req));
    setKnownDevice(res, result.deviceToken, options.production);
    cookies.setAccess(res, result.accessToken);
    // Without rememberMe no refresh cookie; a stale one from an earlier login on this browser must not outlive it.
    if (body.rememberMe) cookies.setRefresh(res, result.refreshToken);
    else cookies.clearRefresh(res);
    const { accessToken, refreshToken, needsPasswordChange, needsEmailSetup } = result;
    ok(res, { user: presentUser(result.user), tokens: { accessToken, refreshToken }, needsPasswordChange, needsEmailSetup }, 'Prihlásenie úspešné');
  });

  // Reads only the refreshToken cookie: a refresh token never travels in a header or body to this endpoint.
  router.post('/refresh', async (req, res) => {
    const token = (req.cookies as Record<string, unknown> | undefined)?.[REFRESH_COOKIE];
    if (typeof token !== 'string' || token.length === 0) throw new AuthenticationError(REFRESH_MISSING, 'refresh_token_missing');
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
    if (result.refreshToken) cookies.setRefresh(res, result.refreshToken);
    ok(res, { accessToken: result.accessToken }, 'Token obnovený');
  });

  router.post('/set-password', auth.requireAuth, async (req, res) => {
    const body = parseBody(setPasswordSchema, req);
    const result = await services.auth.setPassword(requireAuthContext(req).userId, requireAuthContext(req).sessionId, body, requestMeta(req));
    ok(res, presentState(result), 'Heslo úspešne nastavené');
  });

  router.post('/link-email', auth.requireAuth, async (req, res) => {
    const body = parseBody(linkEmailSchema, req);
    const account = await services.emailAccounts.add(requireAuthContext(req).userId, body, requestMeta(req), {
      auditAction: AuditActions.emailLink,
    });
    // The CRM should fill itself now, not at the next cron tick.
    await services.mailSync.requestSync(account.id);
    ok(res, { email: account.email, accountId: account.jmapAccountId }, 'Email účet úspešne pripojený a overený');
  });

  router.post('/skip-email', auth.requireAuth, async (req, res) => {
    const result = await services.auth.skipEmail(requireAuthContext(req).userId, requestMeta(req));
    ok(res, presentState(result), 'Email setup preskočený');
  });

  const logout: RequestHandler = async (req, res) => {
    await services.auth.logout(requireAuthContext(req).user, requireAuthContext(req).sessionId, requestMeta(req));
    cookies.clearAll(res);
    ok(res, undefined, 'Odhlásenie úspešné');
  };
  router.post('/logout', auth.requireAuth, logout, clearCookiesOnAuthFailure(cookies));

  router.get('/session', auth.requireAuth, (req, res) => {
    ok(res, { user: presentUser(requireAuthContext(req).user), authenticated: true }, 'Relácia je platná');
  });

  router.get('/me', auth.requireAuth, (req, res) => {
    ok(res, { user: presentUser(requireAuthContext(req).user) }, 'Používateľ načítaný');
  });

  return router;
}

function presentState(state: UserState) {
  return { user: presentUser(state.user), needsPasswordChange: state.needsPasswordChange, needsEmailSetup: state.needsEmailSetup };
}

/** A logout whose access token is already dead still leaves the browser without credentials. */
function clearCookiesOnAuthFailure(cookies: AuthCookies): ErrorRequestHandler {
  return (err, _req, res, next) => {
    if (err instanceof AuthenticationError) cookies.clearAll(res);
    next(err);
  };
}
