import { Op, type CreationAttributes } from 'sequelize';
import { type Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';
import { Session, User } from '../models/index.js';

/** A users row as plain attributes (what the session check answers and the session cache keeps). */
export type UserRow = Record<string, unknown>;

/** The sessions table, and the one query that checks a session together with its user. */
export class SessionRepository {
  private activeSessionSql?: string;

  constructor(private readonly sql: Sql) {}

  create(values: CreationAttributes<Session>, tx?: Tx): Promise<Session> {
    return Session.create(values, { transaction: tx });
  }

  /** The session row locked FOR UPDATE until the transaction ends. */
  lockById(id: string, tx: Tx): Promise<Session | null> {
    return Session.findByPk(id, { transaction: tx, lock: tx.LOCK.UPDATE });
  }

  async save(session: Session, tx?: Tx): Promise<Session> {
    return session.save({ transaction: tx });
  }

  /** The session (if it still stands: not revoked, not expired) with its user's row. */
  async findActiveWithUser(
    sessionId: string,
    userId: string,
  ): Promise<{ user: UserRow; sessionExpiresAt: Date; sessionLastUsedAt: Date; hasActiveEmailAccount: boolean } | undefined> {
    const row = await this.sql.one<UserRow>(this.activeSessionQuery(), { sessionId, userId });
    if (!row) return undefined;
    const { sessionExpiresAt, sessionLastUsedAt, hasActiveEmailAccount, ...user } = row;
    return { user, sessionExpiresAt: sessionExpiresAt as Date, sessionLastUsedAt: sessionLastUsedAt as Date, hasActiveEmailAccount: hasActiveEmailAccount === true };
  }

  /**
   * Records that the session was used now, unless that was recorded less than `minSeconds` ago: at
   * most one write per session and interval, however many requests. The auth-change trigger ignores
   * last_used_at, so this evicts nothing from any session cache.
   */
  async touch(sessionId: string, minSeconds: number): Promise<void> {
    await this.sql.execute('UPDATE sessions SET last_used_at = now() WHERE id = $sessionId AND last_used_at < now() - make_interval(secs => $minSeconds)', {
      sessionId,
      minSeconds,
    });
  }

  /** What findAll does with its rows: a persisted instance, not a new record. */
  userFromRow(row: UserRow): User {
    return User.build(row as never, { raw: true, isNewRecord: false });
  }

  async revoke(sessionId: string, reason: string, tx?: Tx): Promise<void> {
    await Session.update({ revokedAt: new Date(), revokedReason: reason }, { where: { id: sessionId, revokedAt: null }, transaction: tx });
  }

  /** The user's sessions that still stand, the most recently used first (no token hashes read). */
  listOpen(userId: string): Promise<Session[]> {
    return Session.findAll({
      where: { userId, revokedAt: null, expiresAt: { [Op.gt]: new Date() } },
      attributes: ['id', 'userId', 'createdAt', 'lastUsedAt', 'ip', 'userAgent', 'rememberMe', 'expiresAt'],
      order: [
        ['lastUsedAt', 'DESC'],
        ['createdAt', 'DESC'],
        ['id', 'ASC'],
      ],
    });
  }

  /** Ends the session only if it is `userId`'s and still stands; answers whether it did. */
  async revokeOpen(sessionId: string, userId: string, reason: string, tx?: Tx): Promise<boolean> {
    const [count] = await Session.update(
      { revokedAt: new Date(), revokedReason: reason },
      { where: { id: sessionId, userId, revokedAt: null, expiresAt: { [Op.gt]: new Date() } }, transaction: tx },
    );
    return count === 1;
  }

  /** Ends every open session of a user but `except` (when given); answers how many ended. */
  async revokeAllForUser(userId: string, reason: string, except: string | undefined, tx?: Tx): Promise<number> {
    const where: Record<string | symbol, unknown> = { userId, revokedAt: null };
    if (except) where.id = { [Op.ne]: except };
    const [count] = await Session.update({ revokedAt: new Date(), revokedReason: reason }, { where, transaction: tx });
    return count;
  }

  /** Deletes sessions that expired, or were revoked before `revokedBefore`; answers how many. */
  pruneEnded(now: Date, revokedBefore: Date, tx?: Tx): Promise<number> {
    return this.sql.execute('DELETE FROM sessions WHERE expires_at < $now OR revoked_at < $revokedBefore', { now, revokedBefore }, tx);
  }

  /** How many of these triggers exist (the session cache's invalidation rests on them). */
  async countTriggers(names: string[]): Promise<number> {
    const row = await this.sql.one<{ n: number }>('SELECT count(*)::int AS n FROM pg_trigger WHERE tgname = ANY($names)', { names });
    return row!.n;
  }

  /** One plain query instead of a Sequelize include; the column list follows the User model. */
  private activeSessionQuery(): string {
    if (!this.activeSessionSql) {
      const columns = Object.entries(User.getAttributes()).map(([name, attribute]) => `u."${attribute.field ?? name}" AS "${name}"`);
      // Whether the user has an active email account (needsEmailSetup) comes along, so that /me and
      // /session answer from the session check alone (and from its cache). A disabled user's sessions
      // are revoked when they are disabled; the condition keeps any left over inert.
      this.activeSessionSql = `SELECT ${columns.join(', ')}, s.expires_at AS "sessionExpiresAt", s.last_used_at AS "sessionLastUsedAt",
               EXISTS (SELECT 1 FROM email_accounts a WHERE a.user_id = u.id AND a.is_active) AS "hasActiveEmailAccount"
        FROM sessions s JOIN users u ON u.id = s.user_id
        WHERE s.id = $sessionId AND s.user_id = $userId AND s.revoked_at IS NULL AND s.expires_at > now() AND u.disabled_at IS NULL`;
    }
    return this.activeSessionSql;
  }
}
