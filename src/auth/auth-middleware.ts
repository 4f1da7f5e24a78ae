import type { Request, RequestHandler } from 'express';
import { AuthenticationError, ForbiddenError } from '../errors/app-errors.js';
import type { Role } from '../models/index.js';
import { requestMeta, requireAuthContext, type AuthContext } from '../http/auth-context.js';
import type { ApiTokenService } from '../api-tokens/api-token-service.js';
import { NOT_WITH_API_TOKEN, SCOPE_MISSING } from '../api-tokens/api-token-messages.js';
import { requiredScope, scopesGrant } from '../api-tokens/api-token-scopes.js';
import { isApiTokenCredential } from '../api-tokens/api-token-secret.js';
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

export function createAuthMiddleware(tokens: TokenService, sessions: SessionService, cookies: AuthCookies, apiTokens: ApiTokenService) {
  /**
   * A personal API token (`crm_pat_...`): the token must stand (401 otherwise), the path must be one
   * tokens may call at all, and its scopes must cover it (403), as src/api-tokens/api-token-scopes.ts
   * declares per path. Checked here, where every authenticated request passes (logout included).
   */
  const authenticateApiToken = async (req: Request, secret: string): Promise<AuthContext> => {
    const caller = await apiTokens.authenticate(secret, () => requestMeta(req));
    if (!caller) throw new AuthenticationError();
    const needed = requiredScope(`${req.baseUrl}${req.path}`.replace(/^\/api(?=\/)/i, ''), req.method);
    if (needed === null) throw new ForbiddenError(NOT_WITH_API_TOKEN, 'api_token_not_allowed');
    if (!scopesGrant(caller.scopes, needed)) throw new ForbiddenError(SCOPE_MISSING, 'insufficient_scope', { requiredScope: needed });
    const { user, hasActiveEmailAccount } = caller;
    return { userId: user.id, username: user.username, role: user.role, user, hasActiveEmailAccount, apiToken: { id: caller.tokenId, scopes: caller.scopes } };
  };

  /**
   * The caller of a request, from the Bearer header or else the access cookie. A revoked session
   * (logout, password change, admin reset) ends its access tokens at once.
   */
  const authenticate = async (req: Request): Promise<AuthContext> => {
    const bearer = bearerToken(req);
    if (bearer && isApiTokenCredential(bearer)) return authenticateApiToken(req, bearer);
    const token = bearer ?? cookies.access(req);
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

  /**
   * The check uses the role stored now, not the one in a token minted before a role change. An API
   * token must also carry the `admin` scope: an admin's token without it is a member's.
   */
  const requireRole =
    (role: Role): RequestHandler =>
    (req, _res, next) => {
      const caller = requireAuthContext(req);
      if (caller.user.role !== role) throw new ForbiddenError();
      if (role === 'admin' && caller.apiToken && !caller.apiToken.scopes.includes('admin')) {
        throw new ForbiddenError(SCOPE_MISSING, 'insufficient_scope', { requiredScope: 'admin' });
      }
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

/** The session of a session-bound path; a token never gets this far (they refuse tokens), this makes sure. */
export function requireSessionId(caller: AuthContext): string {
  if (!caller.sessionId) throw new ForbiddenError(NOT_WITH_API_TOKEN, 'api_token_not_allowed');
  return caller.sessionId;
}
