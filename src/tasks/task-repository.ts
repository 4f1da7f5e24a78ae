import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';
import { EVENTS_CHANNEL } from '../events/outbox-repository.js';
import { offsetOf, type PageRequest } from '../shared/pagination.js';
import { CLAIM_DUE_TASKS, DUE_BACKLOG } from './task-due-query.js';
import { LOCK_TASK, mayBeAssigned, linkSeen, TASK_BY_ID, tasksByIds, taskListQuery, type TaskListFilter } from './task-query.js';
import { TASK_LINK_TYPES, toTaskRecord, type TaskLinkType, type TaskRecord, type TaskRow } from './task-records.js';

export interface NewTask {
  title: string;
  dueAt: Date;
  assigneeId: string;
  createdBy: string;
  link: { type: TaskLinkType; id: string } | null;
}

/** A task locked for a change, with the caller's sight of it and right on it. */
export interface LockedTask {
  id: string;
  title: string;
  dueAt: Date;
  assigneeId: string;
  status: 'open' | 'done';
  link: { type: TaskLinkType; id: string } | null;
  visible: boolean;
  editable: boolean;
}

export interface TaskChanges {
  title?: string;
  dueAt?: Date;
  status?: 'open' | 'done';
  assigneeId?: string;
}

const LINK_COLUMN: Record<TaskLinkType, string> = { person: 'person_id', company: 'company_id', conversation: 'conversation_id' };

/** All data access of tasks (migrations/0055-tasks.ts); every read for a caller is scoped in SQL (task-query.ts). */
export class TaskRepository {
  constructor(private readonly sql: Sql) {}

  async list(userId: string, filter: TaskListFilter, page: PageRequest): Promise<{ items: TaskRecord[]; total: number }> {
    const { pageSql, countSql } = taskListQuery(filter);
    const bind = { userId, status: filter.status, assignee: filter.assignee };
    // One after the other: a request holds at most one pool connection at a time (ADR 0121).
    const rows = await this.sql.select<TaskRow>(pageSql, { ...bind, limit: page.limit, offset: offsetOf(page) });
    const count = await this.sql.one<{ total: number }>(countSql, bind);
    return { items: rows.map(toTaskRecord), total: count?.total ?? 0 };
  }

  /** The tasks of `ids` the caller sees, in the order of `ids`. */
  visible(userId: string, ids: readonly string[], tx?: Tx): Promise<TaskRecord[]> {
    return this.visibleLinked(userId, ids, TASK_LINK_TYPES, tx);
  }

  /**
   * The tasks of `ids` the caller sees that are linked to one of `links` or to nothing, in the order of
   * `ids`: for a caller whose tasks cannot have another link (a timeline), a statement planned without
   * the other links' rules.
   */
  async visibleLinked(userId: string, ids: readonly string[], links: readonly TaskLinkType[], tx?: Tx): Promise<TaskRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.sql.select<TaskRow>(tasksByIds(links), { userId, ids }, tx);
    const byId = new Map(rows.map((r) => [r.id, toTaskRecord(r)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** The task as `userId` would see its fields, whether or not they still see it. */
  async byId(userId: string, taskId: string, tx?: Tx): Promise<TaskRecord | undefined> {
    const row = await this.sql.one<TaskRow>(TASK_BY_ID, { userId, taskId }, tx);
    return row && toTaskRecord(row);
  }

  /** Whether `userId` sees the linked record (true without a link). */
  async seesLink(userId: string, link: NewTask['link'], tx?: Tx): Promise<boolean> {
    const row = await this.sql.one<{ seen: boolean }>(`SELECT ${linkSeen(link?.type ?? null)} AS seen`, { userId, linkId: link?.id ?? null }, tx);
    return row?.seen === true;
  }

  /** Whether `userId` is an active user who sees the linked record. */
  async mayBeAssigned(userId: string, link: NewTask['link'], tx?: Tx): Promise<boolean> {
    const row = await this.sql.one<{ ok: boolean }>(mayBeAssigned(link?.type ?? null), { userId, linkId: link?.id ?? null }, tx);
    return row?.ok === true;
  }

  async insert(task: NewTask, tx: Tx): Promise<string> {
    const column = task.link ? LINK_COLUMN[task.link.type] : null;
    const row = await this.sql.one<{ id: string }>(
      `INSERT INTO tasks (title, due_at, assignee_id, created_by${column ? `, ${column}` : ''})
       VALUES ($title, $dueAt, $assigneeId, $createdBy${column ? ', $linkId' : ''}) RETURNING id`,
      { title: task.title, dueAt: task.dueAt, assigneeId: task.assigneeId, createdBy: task.createdBy, linkId: task.link?.id ?? null },
      tx,
    );
    return row!.id;
  }

  async lock(userId: string, taskId: string, tx: Tx): Promise<LockedTask | undefined> {
    const row = await this.sql.one<{
      id: string;
      title: string;
      due_at: Date;
      assignee_id: string;
      status: 'open' | 'done';
      person_id: string | null;
      company_id: string | null;
      conversation_id: string | null;
      visible: boolean;
      editable: boolean;
    }>(LOCK_TASK, { userId, taskId }, tx);
    if (!row) return undefined;
    const link = row.person_id
      ? { type: 'person' as const, id: row.person_id }
      : row.company_id
        ? { type: 'company' as const, id: row.company_id }
        : row.conversation_id
          ? { type: 'conversation' as const, id: row.conversation_id }
          : null;
    return { id: row.id, title: row.title, dueAt: row.due_at, assigneeId: row.assignee_id, status: row.status, link, visible: row.visible, editable: row.editable };
  }

  /** A new due time is a new reminder: unclaimed again (announced when it comes). Done sets completed_at, open clears it. */
  async update(taskId: string, changes: TaskChanges, tx: Tx): Promise<void> {
    const sets = ['updated_at = now()'];
    if (changes.title !== undefined) sets.push('title = $title');
    if (changes.dueAt !== undefined) sets.push('due_at = $dueAt', 'notified_at = NULL');
    if (changes.status === 'done') sets.push("status = 'done'", 'completed_at = now()');
    if (changes.status === 'open') sets.push("status = 'open'", 'completed_at = NULL');
    if (changes.assigneeId !== undefined) sets.push('assignee_id = $assigneeId');
    const bind = Object.fromEntries(Object.entries({ taskId, ...changes }).filter(([, value]) => value !== undefined));
    await this.sql.execute(`UPDATE tasks SET ${sets.join(', ')} WHERE id = $taskId`, bind, tx);
  }

  remove(taskId: string, tx: Tx): Promise<number> {
    return this.sql.execute('DELETE FROM tasks WHERE id = $taskId', { taskId }, tx);
  }

  /** The open tasks of a user who is being deleted go to `toUserId` (the hand-over); how many. */
  handOver(fromUserId: string, toUserId: string, tx: Tx): Promise<number> {
    return this.sql.execute("UPDATE tasks SET assignee_id = $toUserId, updated_at = now() WHERE assignee_id = $fromUserId AND status = 'open'", { fromUserId, toUserId }, tx);
  }

  /** An event addressed to one user, in the writer's transaction (the outbox, migration 0021); the hubs are woken at commit. */
  async emit(type: 'task.assigned', userId: string, accountId: string | null, payload: Record<string, unknown>, tx: Tx): Promise<void> {
    await this.sql.execute(
      'INSERT INTO events (type, email_account_id, user_id, payload) VALUES ($type, $accountId, $userId, $payload::jsonb)',
      { type, accountId, userId, payload: JSON.stringify(payload) },
      tx,
    );
    await this.sql.execute(`SELECT pg_notify('${EVENTS_CHANNEL}', '')`, {}, tx);
  }

  /** The mailbox of a conversation (an event's account), or null. */
  async conversationAccount(conversationId: string, tx?: Tx): Promise<string | null> {
    const row = await this.sql.one<{ id: string }>('SELECT email_account_id AS id FROM email_threads WHERE id = $conversationId', { conversationId }, tx);
    return row?.id ?? null;
  }

  /** Claims up to `batch` due tasks and writes their task.due events (CLAIM_DUE_TASKS); the hubs are woken at commit. */
  async claimDue(batch: number, tx: Tx): Promise<{ claimed: number; sent: number }> {
    const row = await this.sql.one<{ claimed: number; sent: number }>(CLAIM_DUE_TASKS, { batch }, tx);
    if (row!.sent > 0) await this.sql.execute(`SELECT pg_notify('${EVENTS_CHANNEL}', '')`, {}, tx);
    return row!;
  }

  /** Open tasks whose time came and that no check announced yet (the due job's backlog). */
  async backlog(): Promise<{ due: number; oldestDueSeconds: number | null; expiredLeases: number }> {
    const row = await this.sql.one<{ due: number; oldest: number | null }>(DUE_BACKLOG);
    return { due: row?.due ?? 0, oldestDueSeconds: row?.oldest ?? null, expiredLeases: 0 };
  }
}
