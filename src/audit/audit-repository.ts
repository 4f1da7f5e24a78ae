import { Op, col, fn, where, type CreationAttributes, type WhereOptions } from 'sequelize';
import { AuditLog } from '../models/index.js';
import type { Tx } from '../db/transactions.js';
import { escapeLike } from '../db/escape-like.js';
import type { Sql } from '../db/sql.js';
import { offsetOf, type Page, type PageRequest } from '../shared/pagination.js';
import { findAndCountInTurn } from '../db/find-and-count.js';

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

/** Namespace of the advisory locks that make one counted record per window (the key within it is the window). */
const COUNTED_LOCK = 0x61756474;

/** The audit_logs table: records written by every area, read by the admin API and crm-admin. */
export class AuditRepository {
  constructor(private readonly sql: Sql) {}

  async insert(row: CreationAttributes<AuditLog>, tx?: Tx): Promise<void> {
    await AuditLog.create(row, { transaction: tx });
  }

  /** Until the transaction ends, nobody else writes the counted record of this window. */
  async lockWindow(windowKey: string, tx: Tx): Promise<void> {
    await this.sql.execute('SELECT pg_advisory_xact_lock($namespace, hashtext($windowKey))', { namespace: COUNTED_LOCK, windowKey }, tx);
  }

  /**
   * Adds one to the counted record of this action and window (details.window), written since
   * `since`; answers false when there is none yet.
   */
  async bumpCounted(action: string, windowKey: string, since: Date, tx?: Tx): Promise<boolean> {
    const touched = await this.sql.execute(
      `UPDATE audit_logs
          SET details = details || jsonb_build_object('count', coalesce((details->>'count')::int, 1) + 1, 'lastAt', now())
        WHERE action = $action AND created_at >= $since AND details->>'window' = $windowKey`,
      { action, since, windowKey },
      tx,
    );
    return touched > 0;
  }

  /** Deletes the records written before `cutoff` (audit retention); answers how many. */
  pruneBefore(cutoff: Date, tx?: Tx): Promise<number> {
    return this.sql.execute('DELETE FROM audit_logs WHERE created_at < $cutoff', { cutoff }, tx);
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
    const { rows, count } = await findAndCountInTurn(AuditLog, {
      where: { [Op.and]: conditions },
      order: [
        ['createdAt', 'DESC'],
        ['id', 'DESC'],
      ],
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
