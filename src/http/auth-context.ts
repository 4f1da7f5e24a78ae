import type { Request } from 'express';
import { AuthenticationError } from '../errors/app-errors.js';
import type { RequestMeta } from '../shared/request-meta.js';
import type { Role, User } from '../models/index.js';

/** What the authentication layer exposes to handlers (docs/contract.md §5 rule 3): the caller's id and user. */
export interface AuthContext {
  userId: string;
  username: string;
  role: Role;
  /**
   * The session the access token belongs to (logout and password changes act on it); undefined for
   * an API token, which no session-bound path accepts (src/api-tokens/api-token-scopes.ts).
   */
  sessionId?: string;
  /** Set when the request came with a personal API token instead of a login session. */
  apiToken?: { id: string; scopes: readonly string[] };
  /** The user row as loaded for this request (roles are checked against it, not the token). */
  user: User;
  /** Whether the user has an active email account, checked with the session (needsEmailSetup). */
  hasActiveEmailAccount: boolean;
}

declare module 'express-serve-static-core' {
  interface Request {
    auth?: AuthContext;
  }
}

export function requireAuthContext(req: Request): AuthContext {
  if (!req.auth) throw new AuthenticationError();
  return req.auth;
}

/** How the caller signed in (a session or an API token), for work that checks it again before it acts (a long send). */
export function signInOf(req: Request): { sessionId?: string; apiTokenId?: string } {
  const auth = requireAuthContext(req);
  return { ...(auth.sessionId !== undefined ? { sessionId: auth.sessionId } : {}), ...(auth.apiToken ? { apiTokenId: auth.apiToken.id } : {}) };
}

export function requestMeta(req: Request): RequestMeta {
  return {
    ip: req.ip ?? null,
    userAgent: req.get('user-agent') ?? null,
    actor: req.auth ? `user:${req.auth.userId}` : 'anonymous',
  };
}
