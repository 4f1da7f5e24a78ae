import type { Request, RequestHandler } from 'express';
import { AuthenticationError, ForbiddenError } from '../errors/app-errors.js';
import type { Role } from '../models/index.js';
import { requireAuthContext } from '../http/auth-context.js';
import type { SessionService } from './session-service.js';
import type { TokenService } from './token-service.js';

/** The access token comes from the `accessToken` cookie (browser) or an `Authorization: Bearer` header (API clients). */
export function readAccessToken(req: Request): string | undefined {
  const header = req.get('authorization');
  if (header) {
    const match = /^Bearer\s+([A-Za-z0-9._~+/=-]+)$/i.exec(header.trim());
    if (match) return match[1];
  }
  const cookie = (req.cookies as Record<string, unknown> | undefined)?.accessToken;
  return typeof cookie === 'string' && cookie.length > 0 ? cookie : undefined;
}

export function createAuthMiddleware(tokens: TokenService, sessions: SessionService) {
  const requireAuth: RequestHandler = async (req, _res, next) => {
    const token = readAccessToken(req);
    if (!token) throw new AuthenticationError();
    const claims = tokens.verifyAccess(token);
    // A revoked session (logout, password change, admin reset) ends its access tokens at once.
    const user = await sessions.activeSessionUser(claims.sid, claims.id);
    if (!user) throw new AuthenticationError();
    req.auth = { userId: user.id, username: user.username, role: user.role, sessionId: claims.sid, user };
    next();
  };

  /** The check uses the role stored now, not the one in a token minted before a role change. */
  const requireRole =
    (role: Role): RequestHandler =>
    (req, _res, next) => {
      if (requireAuthContext(req).user.role !== role) throw new ForbiddenError();
      next();
    };

  return { requireAuth, requireRole };
}

export type AuthMiddleware = ReturnType<typeof createAuthMiddleware>;
