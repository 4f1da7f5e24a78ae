import { Op, type Sequelize, type WhereOptions } from 'sequelize';
import { AuditLog, User } from '../models/index.js';
import { escapeLike } from '../db/escape-like.js';

export interface AuditQuery {
  userId?: string;
  /** Records about a user by name: also finds those of deleted users (their user_id is gone, the name stays). */
  username?: string;
  /** Exact action, or a prefix when it ends in "*" (e.g. "admin.*"). */
  action?: string;
  /** Inclusive lower bound. */
  since?: Date;
  /** Exclusive upper bound, so consecutive windows never count a record twice. */
  until?: Date;
  success?: boolean;
  page: number;
  limit: number;
}

/** Reading the audit trail, newest first; the admin API and `crm-admin audit list` share it. */
export class AuditQueryService {
  constructor(private readonly sequelize: Sequelize) {}

  async list(query: AuditQuery): Promise<{ items: AuditLog[]; total: number }> {
    const conditions: WhereOptions[] = [];
    if (query.userId) conditions.push({ userId: query.userId });
    if (query.username) conditions.push(await this.aboutUsername(query.username));
    if (query.action) {
      conditions.push(
        query.action.endsWith('*')
          ? { action: { [Op.like]: `${escapeLike(query.action.slice(0, -1))}%` } }
          : { action: query.action },
      );
    }
    if (query.since) conditions.push({ createdAt: { [Op.gte]: query.since } });
    if (query.until) conditions.push({ createdAt: { [Op.lt]: query.until } });
    if (query.success !== undefined) conditions.push({ success: query.success });
    const { rows, count } = await AuditLog.findAndCountAll({
      where: { [Op.and]: conditions },
      order: [['createdAt', 'DESC'], ['id', 'DESC']],
      limit: query.limit,
      offset: (query.page - 1) * query.limit,
    });
    return { items: rows, total: count };
  }

  private async aboutUsername(username: string): Promise<WhereOptions> {
    const lower = username.toLowerCase();
    const byName = this.sequelize.where(this.sequelize.fn('lower', this.sequelize.col('username')), lower);
    const user = await User.findOne({ where: this.sequelize.where(this.sequelize.fn('lower', this.sequelize.col('username')), lower), attributes: ['id'] });
    return user ? { [Op.or]: [byName, { userId: user.id }] } : byName;
  }
}
