import crypto from 'node:crypto';
import { Op, type Sequelize, type Transaction } from 'sequelize';
import { AuthenticationError } from '../errors/app-errors.js';
import { Session, User } from '../models/index.js';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
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

const REFRESH_INVALID = 'Refresh token expiroval alebo je neplatný';

/**
 * Login sessions stored in PostgreSQL (so every instance behind a load balancer agrees): creation,
 * refresh-token rotation with reuse detection, and revocation.
 */
export class SessionService {
  constructor(
    private readonly sequelize: Sequelize,
    private readonly tokens: TokenService,
    private readonly audit: AuditService,
  ) {}

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
    );
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
      const withinGrace = session.rotatedAt && Date.now() - session.rotatedAt.getTime() <= REFRESH_GRACE_SECONDS * 1000;
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

  /** The check behind every authenticated request: the session still stands and the user still exists. */
  async activeSessionUser(sessionId: string, userId: string): Promise<User | null> {
    const session = await Session.findOne({
      where: { id: sessionId, userId, revokedAt: null, expiresAt: { [Op.gt]: new Date() } },
      include: [{ model: User, as: 'user', required: true }],
    });
    return (session as (Session & { user?: User }) | null)?.user ?? null;
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
