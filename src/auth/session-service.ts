import crypto from 'node:crypto';
import { ForeignKeyConstraintError, Op, QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { AuthenticationError } from '../errors/app-errors.js';
import { Session, User } from '../models/index.js';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { Logger } from '../logging/logger.js';
import { INVALID_CREDENTIALS, REFRESH_INVALID } from './auth-messages.js';
import { SessionCache, type UserRow } from './session-cache.js';
import { REFRESH_TOKEN_TTL_SECONDS, hashTokenId, type TokenService } from './token-service.js';

/** Parallel tabs refresh at the same moment: the token rotated away this recently is still honoured. */
export const REFRESH_GRACE_SECONDS = 10;

export interface IssuedTokens {
  accessToken: string;
  /** Absent when a just-rotated token was presented within the grace period (the racing response carries the new one). */
  refreshToken?: string;
}

export interface SessionTokens extends IssuedTokens {
  user: User;
  session: Session;
}


export interface SessionServiceOptions {
  /** Seconds a just-rotated refresh token is still honoured (default REFRESH_GRACE_SECONDS). */
  graceSeconds?: number;
  /** Keep checked sessions in memory, invalidated through LISTEN/NOTIFY (default true). */
  cache?: boolean;
  logger?: Logger;
}

/**
 * Login sessions stored in PostgreSQL (so every instance behind a load balancer agrees): creation,
 * refresh-token rotation with reuse detection, and revocation.
 */
export class SessionService {
  private readonly graceMs: number;
  private readonly cache?: SessionCache;
  private activeSessionSql?: string;

  constructor(
    private readonly sequelize: Sequelize,
    private readonly tokens: TokenService,
    private readonly audit: AuditService,
    options: SessionServiceOptions = {},
  ) {
    this.graceMs = (options.graceSeconds ?? REFRESH_GRACE_SECONDS) * 1000;
    this.cache = options.cache === false ? undefined : new SessionCache(sequelize, options.logger);
  }

  async create(user: User, options: { rememberMe: boolean }, meta: RequestMeta, transaction?: Transaction): Promise<SessionTokens> {
    const jti = crypto.randomUUID();
    const session = await Session.create(
      {
        userId: user.id,
        currentJtiHash: hashTokenId(jti),
        previousJtiHash: null,
        rotatedAt: null,
        rememberMe: options.rememberMe,
        expiresAt: new Date(Date.now() + REFRESH_TOKEN_TTL_SECONDS * 1000),
        revokedAt: null,
        revokedReason: null,
        ip: meta.ip ?? null,
        userAgent: meta.userAgent?.slice(0, 512) ?? null,
      },
      { transaction },
    ).catch((err: unknown) => {
      // The user was deleted between the password check and this insert: for the caller that is
      // simply a failed login, not a server error.
      if (err instanceof ForeignKeyConstraintError) throw new AuthenticationError(INVALID_CREDENTIALS);
      throw err;
    });
    return { user, session, ...this.issue(user, session, jti) };
  }

  /** Exchanges a refresh token for a new access token and a rotated refresh token. */
  async refresh(refreshToken: string, meta: RequestMeta): Promise<SessionTokens> {
    const claims = this.tokens.verifyRefresh(refreshToken, REFRESH_INVALID);
    const outcome = await this.sequelize.transaction(async (transaction) => {
      // Row lock: two refreshes of one session are decided one after the other.
      const session = await Session.findByPk(claims.sid, { transaction, lock: transaction.LOCK.UPDATE });
      if (!session || session.userId !== claims.sub || session.revokedAt || session.expiresAt <= new Date()) return { error: true as const };
      const user = await User.findByPk(session.userId, { transaction });
      if (!user) return { error: true as const };
      const presented = hashTokenId(claims.jti);
      if (presented === session.currentJtiHash) {
        const jti = crypto.randomUUID();
        session.previousJtiHash = session.currentJtiHash;
        session.currentJtiHash = hashTokenId(jti);
        session.rotatedAt = new Date();
        session.lastUsedAt = new Date();
        await session.save({ transaction });
        return { user, session, ...this.issue(user, session, jti) };
      }
      const withinGrace = session.rotatedAt && Date.now() - session.rotatedAt.getTime() <= this.graceMs;
      if (presented === session.previousJtiHash && withinGrace) {
        return { user, session, accessToken: this.signAccessFor(user, session) };
      }
      // A rotated-away token came back: it was stolen or replayed. End the whole family.
      session.revokedAt = new Date();
      session.revokedReason = 'refresh_token_reuse';
      await session.save({ transaction });
      await this.audit.record(
        { action: AuditActions.refreshReuse, userId: user.id, username: user.username, success: false, details: { sessionId: session.id } },
        meta,
        transaction,
      );
      return { error: true as const };
    });
    if ('error' in outcome) throw new AuthenticationError(REFRESH_INVALID);
    return outcome;
  }

  /**
   * The check behind every authenticated request: the session still stands and the user still exists.
   * Served from memory when this session was checked recently and nothing about it changed since.
   * Each call answers its own User instance (handlers may modify it).
   */
  async activeSessionUser(sessionId: string, userId: string): Promise<User | null> {
    const cached = this.cache?.get(sessionId, userId);
    if (cached) return buildUser(cached);
    const ticket = this.cache?.ticket() ?? null;
    const rows = await this.sequelize.query<UserRow>(this.activeSessionQuery(), { bind: [sessionId, userId], type: QueryTypes.SELECT });
    const row = rows[0];
    if (!row) return null;
    const { sessionExpiresAt, ...userRow } = row;
    this.cache?.put(ticket, sessionId, userId, userRow, sessionExpiresAt as Date);
    return buildUser(userRow);
  }

  /** For health/metrics and tests: whether checked sessions are being served from memory. */
  cacheStats(): { enabled: boolean; listening: boolean; entries: number } {
    return { enabled: !!this.cache, listening: this.cache?.listening ?? false, entries: this.cache?.size ?? 0 };
  }

  async revoke(sessionId: string, reason: string, transaction?: Transaction): Promise<void> {
    await Session.update({ revokedAt: new Date(), revokedReason: reason }, { where: { id: sessionId, revokedAt: null }, transaction });
  }

  /** Ends every session of a user, optionally keeping the caller's own (password change). */
  async revokeAllForUser(userId: string, reason: string, options: { except?: string; transaction?: Transaction } = {}): Promise<number> {
    const where: Record<string | symbol, unknown> = { userId, revokedAt: null };
    if (options.except) where.id = { [Op.ne]: options.except };
    const [count] = await Session.update({ revokedAt: new Date(), revokedReason: reason }, { where, transaction: options.transaction });
    return count;
  }

  /** One plain query instead of a Sequelize include; the column list follows the User model. */
  private activeSessionQuery(): string {
    if (!this.activeSessionSql) {
      const columns = Object.entries(User.getAttributes()).map(([name, attribute]) => `u."${attribute.field ?? name}" AS "${name}"`);
      this.activeSessionSql = `SELECT ${columns.join(', ')}, s.expires_at AS "sessionExpiresAt"
        FROM sessions s JOIN users u ON u.id = s.user_id
        WHERE s.id = $1 AND s.user_id = $2 AND s.revoked_at IS NULL AND s.expires_at > now()`;
    }
    return this.activeSessionSql;
  }

  private issue(user: User, session: Session, jti: string): IssuedTokens {
    return {
      accessToken: this.signAccessFor(user, session),
      refreshToken: this.tokens.signRefresh({ sub: user.id, sid: session.id, jti }),
    };
  }

  private signAccessFor(user: User, session: Session): string {
    return this.tokens.signAccess({ id: user.id, username: user.username, role: user.role, sid: session.id });
  }
}

/** What findAll does with its rows: a persisted instance, not a new record. */
function buildUser(row: UserRow): User {
  return User.build(row as never, { raw: true, isNewRecord: false });
}
