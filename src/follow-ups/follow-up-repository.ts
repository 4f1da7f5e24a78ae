import { EVENTS_CHANNEL } from '../events/outbox-repository.js';
import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';
import { offsetOf, type PageRequest } from '../shared/pagination.js';
import { CLAIM_DUE, FOLLOW_UPS_BY_IDS, followUpListQuery, ONE_FOLLOW_UP, UPSERT } from './follow-up-query.js';
import type { FollowUpStatusFilter } from './follow-up-query.js';

/** The list's filters (GET /api/follow-ups?status=&contactId=). */
export interface FollowUpFilter {
  status: FollowUpStatusFilter;
  contactId?: string;
}

/** A follow-up as the service returns it. */
export interface FollowUpRecord {
  id: string;
  contactId: string;
  contact: { id: string; emailAccountId: string; email: string; name: string | null };
  dueAt: Date;
  note: string | null;
  status: 'due' | 'upcoming';
  answered: boolean;
  notifiedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

interface FollowUpRow {
  id: string;
  contact_id: string;
  due_at: Date;
  note: string | null;
  notified_at: Date | null;
  created_at: Date;
  updated_at: Date;
  email_account_id: string;
  contact_email: string;
  contact_name: string | null;
  is_due: boolean;
  answered: boolean;
}

const toRecord = (r: FollowUpRow): FollowUpRecord => ({
  id: r.id,
  contactId: r.contact_id,
  contact: { id: r.contact_id, emailAccountId: r.email_account_id, email: r.contact_email, name: r.contact_name },
  dueAt: r.due_at,
  note: r.note,
  status: r.is_due ? 'due' : 'upcoming',
  answered: r.answered,
  notifiedAt: r.notified_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** All data access of the follow-ups (migrations/0029-follow-ups.ts). */
export class FollowUpRepository {
  constructor(private readonly sql: Sql) {}

  async list(userId: string, filter: FollowUpFilter, page: PageRequest): Promise<{ items: FollowUpRecord[]; total: number }> {
    const { pageSql, countSql } = followUpListQuery(filter.status, filter.contactId !== undefined);
    const bind = { userId, ...(filter.contactId !== undefined ? { contactId: filter.contactId } : {}) };
    // One after the other: a request holds at most one pool connection at a time (ADR 0121).
    const rows = await this.sql.select<FollowUpRow>(pageSql, { ...bind, limit: page.limit, offset: offsetOf(page) });
    const count = await this.sql.one<{ total: number }>(countSql, bind);
    return { items: rows.map(toRecord), total: count?.total ?? 0 };
  }

  async find(userId: string, contactId: string, tx?: Tx): Promise<FollowUpRecord | undefined> {
    const row = await this.sql.one<FollowUpRow>(ONE_FOLLOW_UP, { userId, contactId }, tx);
    return row && toRecord(row);
  }

  /** The caller's follow-ups of `ids` (those they may see), by id. */
  async byIds(userId: string, ids: readonly string[]): Promise<Map<string, FollowUpRecord>> {
    if (ids.length === 0) return new Map();
    const rows = await this.sql.select<FollowUpRow>(FOLLOW_UPS_BY_IDS, { userId, ids });
    return new Map(rows.map((r) => [r.id, toRecord(r)]));
  }

  /** Sets the caller's follow-up of the contact; true when there was none before. */
  async upsert(userId: string, contactId: string, dueAt: Date, note: string | null, tx: Tx): Promise<boolean> {
    const row = await this.sql.one<{ created: boolean }>(UPSERT, { userId, contactId, dueAt, note }, tx);
    return row!.created;
  }

  /** Removes the caller's follow-up of the contact; how many rows went (0 or 1). */
  remove(userId: string, contactId: string, tx?: Tx): Promise<number> {
    return this.sql.execute('DELETE FROM follow_ups WHERE user_id = $userId AND contact_id = $contactId', { userId, contactId }, tx);
  }

  /**
   * Claims up to `batch` due follow-ups and writes their follow_up.due events (CLAIM_DUE); the hubs
   * are woken at commit (a NOTIFY of the transaction is sent when it commits, never before).
   */
  async claimDue(batch: number, tx: Tx): Promise<{ claimed: number; sent: number }> {
    const row = await this.sql.one<{ claimed: number; sent: number }>(CLAIM_DUE, { batch }, tx);
    if (row!.sent > 0) await this.sql.execute(`SELECT pg_notify('${EVENTS_CHANNEL}', '')`, {}, tx);
    return row!;
  }

  /** Follow-ups whose time came and that no due check has announced yet (the due job's backlog, ADR 0145). */
  async backlog(): Promise<{ due: number; oldestDueSeconds: number | null; expiredLeases: number }> {
    const row = await this.sql.one<{ due: number; oldest: number | null }>(
      'SELECT count(*)::int AS due, extract(epoch FROM now() - min(due_at))::float8 AS oldest FROM follow_ups WHERE notified_at IS NULL AND due_at <= now()',
    );
    return { due: row?.due ?? 0, oldestDueSeconds: row?.oldest ?? null, expiredLeases: 0 };
  }
}
