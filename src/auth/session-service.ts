import crypto from 'node:crypto';
import { AuthenticationError } from '../errors/app-errors.js';
import type { Session, User } from '../models/index.js';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import { isForeignKeyViolation } from '../db/db-errors.js';
import type { Transactions, Tx } from '../db/transactions.js';
import type { UserRepository } from '../users/user-repository.js';
import { INVALID_CREDENTIALS, REFRESH_INVALID } from './auth-messages.js';
import type { SessionCache } from './session-cache.js';
import type { SessionRepository } from './session-repository.js';
import { ACCESS_TOKEN_TTL_SECONDS, REFRESH_TOKEN_TTL_SECONDS, hashTokenId, type TokenService } from './token-service.js';

/** Parallel tabs refresh at the same moment: the token rotated away this recently is still honoured. */
export const REFRESH_GRACE_SECONDS = 10;

/** How fresh a session's lastUsedAt is kept: written at most once this many seconds per session. */
export const LAST_USED_RESOLUTION_SECONDS = 60;

export interface IssuedTokens {
  accessToken: string;
  /** Absent when a just-rotated token was presented within the grace period (the racing response carries the new one). */
  refreshToken?: string;
}

export interface SessionTokens extends IssuedTokens {
  user: User;
  session: Session;
}

export interface SessionServiceDeps {
  sessions: SessionRepository;
  users: Pick<UserRepository, 'findById'>;
  transactions: Transactions;
  tokens: TokenService;
  audit: AuditService;
  /** Checked sessions kept in memory, invalidated through LISTEN/NOTIFY; without one every check reads the database. */
  cache?: SessionCache;
  /** Seconds a just-rotated refresh token is still honoured (default REFRESH_GRACE_SECONDS). */
  graceSeconds?: number;
}

/**
 * Login sessions stored in PostgreSQL (so every instance behind a load balancer agrees): creation,
 * refresh-token rotation with reuse detection, and revocation.
 */
export class SessionService {
  private readonly graceMs: number;

  constructor(private readonly deps: SessionServiceDeps) {
    this.graceMs = (deps.graceSeconds ?? REFRESH_GRACE_SECONDS) * 1000;
  }

  /**
   * Without rememberMe the session ends with the access token: the refresh token the contract returns in
   * the body then cannot extend it (no cookie carries it, but a client could store it).
   */
  async create(user: User, options: { rememberMe: boolean }, meta: RequestMeta, tx?: Tx): Promise<SessionTokens> {
    const jti = crypto.randomUUID();
    const lifetimeSeconds = options.rememberMe ? REFRESH_TOKEN_TTL_SECONDS : ACCESS_TOKEN_TTL_SECONDS;
    // Whole seconds, like JWT times: the access token signed a moment later never ends before the session.
    const expiresAt = new Date((Math.floor(Date.now() / 1000) + lifetimeSeconds) * 1000);
    const session = await this.deps.sessions
      .create(
        {
          userId: user.id,
          currentJtiHash: hashTokenId(jti),
          previousJtiHash: null,
          rotatedAt: null,
          rememberMe: options.rememberMe,
          expiresAt,
          revokedAt: null,
          revokedReason: null,
          ip: meta.ip ?? null,
          userAgent: meta.userAgent?.slice(0, 512) ?? null,
        },
        tx,
      )
      .catch((err: unknown) => {
        // The user was deleted between the password check and this insert: for the caller that is
        // simply a failed login, not a server error.
        if (isForeignKeyViolation(err)) throw new AuthenticationError(INVALID_CREDENTIALS, 'invalid_credentials');
        throw err;
      });
    return { user, session, ...this.issue(user, session, jti) };
  }

  /** Exchanges a refresh token for a new access token and a rotated refresh token. */
  async refresh(refreshToken: string, meta: RequestMeta): Promise<SessionTokens> {
    const claims = this.deps.tokens.verifyRefresh(refreshToken, REFRESH_INVALID);
    const outcome = await this.deps.transactions.run(async (tx) => {
      // Row lock: two refreshes of one session are decided one after the other.
      const session = await this.deps.sessions.lockById(claims.sid, tx);
      if (!session || session.userId !== claims.sub || session.revokedAt || session.expiresAt <= new Date()) return { error: true as const };
      const user = await this.deps.users.findById(session.userId, tx);
      if (!user || user.disabledAt) return { error: true as const };
      const presented = hashTokenId(claims.jti);
      if (presented === session.currentJtiHash) {
        const jti = crypto.randomUUID();
        session.previousJtiHash = session.currentJtiHash;
        session.currentJtiHash = hashTokenId(jti);
        session.rotatedAt = new Date();
        session.lastUsedAt = new Date();
        await this.deps.sessions.save(session, tx);
        return { user, session, ...this.issue(user, session, jti) };
      }
      const withinGrace = session.rotatedAt && Date.now() - session.rotatedAt.getTime() <= this.graceMs;
      if (presented === session.previousJtiHash && withinGrace) {
        return { user, session, accessToken: this.signAccessFor(user, session) };
      }
      // A rotated-away token came back: it was stolen or replayed. End the whole family.
      session.revokedAt = new Date();
      session.revokedReason = 'refresh_token_reuse';
      await this.deps.sessions.save(session, tx);
      await this.deps.audit.record({ action: AuditActions.refreshReuse, userId: user.id, username: user.username, success: false, details: { sessionId: session.id } }, meta, tx);
      return { error: true as const };
    });
    if ('error' in outcome) throw new AuthenticationError(REFRESH_INVALID, 'refresh_token_invalid');
    return outcome;
  }

  /**
   * The check behind every authenticated request: the session still stands and the user still exists.
   * Served from memory when this session was checked recently and nothing about it changed since.
   * Each call answers its own User instance (handlers may modify it), and whether the user has an
   * active email account (needsEmailSetup), kept and invalidated with the session.
   */
  async activeSession(sessionId: string, userId: string): Promise<{ user: User; hasActiveEmailAccount: boolean } | null> {
    const { cache, sessions } = this.deps;
    const cached = cache?.get(sessionId, userId);
    if (cached) return { user: sessions.userFromRow(cached.user), hasActiveEmailAccount: cached.hasActiveEmailAccount };
    const ticket = cache?.ticket() ?? null;
    const found = await sessions.findActiveWithUser(sessionId, userId);
    if (!found) return null;
    // A used session misses the cache at least once a minute (its TTL): when the session was last
    // used is recorded here, at most once a minute, never on every request.
    if (Date.now() - found.sessionLastUsedAt.getTime() >= LAST_USED_RESOLUTION_SECONDS * 1000) await sessions.touch(sessionId, LAST_USED_RESOLUTION_SECONDS);
    const checked = { user: found.user, hasActiveEmailAccount: found.hasActiveEmailAccount };
    cache?.put(ticket, sessionId, userId, checked, found.sessionExpiresAt);
    return { user: sessions.userFromRow(found.user), hasActiveEmailAccount: found.hasActiveEmailAccount };
  }

  /**
   * The user and session a refresh token names, when that session still stands; null for a bad,
   * expired or foreign token. For a logout whose access token already expired (docs/contract.md §4.1 rule 7): the
   * browser still holds the refresh cookie, and that session must end, not linger until it expires.
   */
  async sessionOfRefreshToken(refreshToken: string): Promise<{ user: User; sessionId: string } | null> {
    let claims: { sub: string; sid: string };
    try {
      claims = this.deps.tokens.verifyRefresh(refreshToken, REFRESH_INVALID);
    } catch (err) {
      if (err instanceof AuthenticationError) return null;
      throw err;
    }
    const found = await this.deps.sessions.findActiveWithUser(claims.sid, claims.sub);
    return found ? { user: this.deps.sessions.userFromRow(found.user), sessionId: claims.sid } : null;
  }

  /** For health/metrics and tests: whether checked sessions are being served from memory. */
  cacheStats(): { enabled: boolean; listening: boolean; entries: number } {
    const { cache } = this.deps;
    return { enabled: !!cache, listening: cache?.listening ?? false, entries: cache?.size ?? 0 };
  }

  async revoke(sessionId: string, reason: string, tx?: Tx): Promise<void> {
    await this.deps.sessions.revoke(sessionId, reason, tx);
  }

  /** Ends every session of a user, optionally keeping the caller's own (password change). */
  revokeAllForUser(userId: string, reason: string, options: { except?: string } = {}, tx?: Tx): Promise<number> {
    return this.deps.sessions.revokeAllForUser(userId, reason, options.except, tx);
  }

  private issue(user: User, session: Session, jti: string): IssuedTokens {
    return {
      accessToken: this.signAccessFor(user, session),
      refreshToken: this.deps.tokens.signRefresh({ sub: user.id, sid: session.id, jti }, Math.floor(session.expiresAt.getTime() / 1000) - Math.floor(Date.now() / 1000)),
    };
  }

  private signAccessFor(user: User, session: Session): string {
    return this.deps.tokens.signAccess({ id: user.id, username: user.username, role: user.role, sid: session.id });
  }
}
