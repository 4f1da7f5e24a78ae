import { Op, col, fn, where, type CreationAttributes, type WhereOptions } from 'sequelize';
import { AuditLog } from '../models/index.js';
import type { Tx } from '../db/transactions.js';
import { escapeLike } from '../db/escape-like.js';
import { offsetOf, type Page, type PageRequest } from '../shared/pagination.js';

export interface AuditFilter {
  userId?: string;
  /**
   * Records about a user by name (case-insensitive), or about the user of that name when `userId` is
   * known: records of deleted users keep the name, their user_id is gone.
   */
  about?: { username: string; userId?: string };
  /** Exact action. */
  action?: string;
  /** Actions that start with this text. */
  actionPrefix?: string;
  /** Inclusive lower bound. */
  since?: Date;
  /** Exclusive upper bound. */
  until?: Date;
  success?: boolean;
}

/** The audit_logs table: records written by every area, read by the admin API and crm-admin. */
export class AuditRepository {
  async insert(row: CreationAttributes<AuditLog>, tx?: Tx): Promise<void> {
    await AuditLog.create(row, { transaction: tx });
  }

  /** Newest first. */
  async list(filter: AuditFilter, page: PageRequest): Promise<Page<AuditLog>> {
    const conditions: WhereOptions[] = [];
    if (filter.userId) conditions.push({ userId: filter.userId });
    if (filter.about) conditions.push(this.about(filter.about));
    if (filter.actionPrefix !== undefined) conditions.push({ action: { [Op.like]: `${escapeLike(filter.actionPrefix)}%` } });
    else if (filter.action) conditions.push({ action: filter.action });
    if (filter.since) conditions.push({ createdAt: { [Op.gte]: filter.since } });
    if (filter.until) conditions.push({ createdAt: { [Op.lt]: filter.until } });
    if (filter.success !== undefined) conditions.push({ success: filter.success });
    const { rows, count } = await AuditLog.findAndCountAll({
      where: { [Op.and]: conditions },
      order: [['createdAt', 'DESC'], ['id', 'DESC']],
      limit: page.limit,
      offset: offsetOf(page),
    });
    return { items: rows, total: count };
  }

  private about(about: { username: string; userId?: string }): WhereOptions {
    const byName = where(fn('lower', col('username')), about.username.toLowerCase());
    return about.userId ? { [Op.or]: [byName, { userId: about.userId }] } : byName;
  }
}
