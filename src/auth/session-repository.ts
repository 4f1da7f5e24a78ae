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
  async findActiveWithUser(sessionId: string, userId: string): Promise<{ user: UserRow; sessionExpiresAt: Date; hasActiveEmailAccount: boolean } | undefined> {
    const row = await this.sql.one<UserRow>(this.activeSessionQuery(), { sessionId, userId });
    if (!row) return undefined;
    const { sessionExpiresAt, hasActiveEmailAccount, ...user } = row;
    return { user, sessionExpiresAt: sessionExpiresAt as Date, hasActiveEmailAccount: hasActiveEmailAccount === true };
  }

  /** What findAll does with its rows: a persisted instance, not a new record. */
  userFromRow(row: UserRow): User {
    return User.build(row as never, { raw: true, isNewRecord: false });
  }

  async revoke(sessionId: string, reason: string, tx?: Tx): Promise<void> {
    await Session.update({ revokedAt: new Date(), revokedReason: reason }, { where: { id: sessionId, revokedAt: null }, transaction: tx });
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
      // /session answer from the session check alone (and from its cache).
      this.activeSessionSql = `SELECT ${columns.join(', ')}, s.expires_at AS "sessionExpiresAt",
               EXISTS (SELECT 1 FROM email_accounts a WHERE a.user_id = u.id AND a.is_active) AS "hasActiveEmailAccount"
        FROM sessions s JOIN users u ON u.id = s.user_id
        WHERE s.id = $sessionId AND s.user_id = $userId AND s.revoked_at IS NULL AND s.expires_at > now()`;
    }
    return this.activeSessionSql;
  }
}
