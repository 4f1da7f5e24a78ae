import type { Request, RequestHandler } from 'express';
import { AuthenticationError, ForbiddenError } from '../errors/app-errors.js';
import type { Role } from '../models/index.js';
import { requireAuthContext, type AuthContext } from '../http/auth-context.js';
import type { AuthCookies } from './cookies.js';
import { PASSWORD_CHANGE_REQUIRED } from './auth-messages.js';
import type { SessionService } from './session-service.js';
import type { TokenService } from './token-service.js';

/** The access token of an `Authorization: Bearer` header (API clients), if the request has one. */
export function bearerToken(req: Request): string | undefined {
  const header = req.get('authorization');
  if (!header) return undefined;
  const match = /^Bearer\s+([A-Za-z0-9._~+/=-]+)$/i.exec(header.trim());
  return match?.[1];
}

export function createAuthMiddleware(tokens: TokenService, sessions: SessionService, cookies: AuthCookies) {
  /**
   * The caller of a request, from the Bearer header or else the access cookie. A revoked session
   * (logout, password change, admin reset) ends its access tokens at once.
   */
  const authenticate = async (req: Request): Promise<AuthContext> => {
    const token = bearerToken(req) ?? cookies.access(req);
    if (!token) throw new AuthenticationError();
    const claims = tokens.verifyAccess(token);
    const checked = await sessions.activeSession(claims.sid, claims.id);
    if (!checked) throw new AuthenticationError();
    const { user, hasActiveEmailAccount } = checked;
    return { userId: user.id, username: user.username, role: user.role, sessionId: claims.sid, user, hasActiveEmailAccount };
  };

  const guard =
    (onboarding: 'enforced' | 'allowed'): RequestHandler =>
    async (req, res, next) => {
      // Personal data and tokens: no browser or proxy cache keeps an authenticated answer (docs/contract.md §5).
      res.set('Cache-Control', 'no-store');
      req.auth = await authenticate(req);
      // docs/contract.md §3: with a temporary password only the onboarding endpoints answer.
      if (onboarding === 'enforced' && !req.auth.user.changedPassword) throw new ForbiddenError(PASSWORD_CHANGE_REQUIRED, 'password_change_required');
      next();
    };

  /** The check uses the role stored now, not the one in a token minted before a role change. */
  const requireRole =
    (role: Role): RequestHandler =>
    (req, _res, next) => {
      if (requireAuthContext(req).user.role !== role) throw new ForbiddenError();
      next();
    };

  return {
    authenticate,
    /** Every protected endpoint: an authenticated caller who has set their own password. */
    requireAuth: guard('enforced'),
    /** Only the endpoints a user with a temporary password still reaches: me, session, set-password. */
    requireAuthDuringOnboarding: guard('allowed'),
    requireRole,
  };
}

export type AuthMiddleware = ReturnType<typeof createAuthMiddleware>;
