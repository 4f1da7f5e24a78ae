import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import { COMPANY_NOT_FOUND } from '../companies/company-visibility.js';
import { CONVERSATION_NOT_FOUND } from '../conversations/conversation-records.js';
import { isForeignKeyViolation } from '../db/db-errors.js';
import type { Transactions, Tx } from '../db/transactions.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors/app-errors.js';
import { PERSON_NOT_FOUND } from '../people/person-visibility.js';
import type { Page, PageRequest } from '../shared/pagination.js';
import type { TaskListFilter } from './task-query.js';
import { ASSIGNEE_CANNOT_SEE, TASK_EDIT_DENIED, TASK_NOT_FOUND, type TaskLinkType, type TaskRecord } from './task-records.js';
import type { LockedTask, NewTask, TaskChanges, TaskRepository } from './task-repository.js';

export type { TaskListFilter } from './task-query.js';
export type { TaskChanges } from './task-repository.js';

export interface TaskInput {
  title: string;
  dueAt: Date;
  assigneeId?: string;
  personId?: string;
  companyId?: string;
  conversationId?: string;
}

/** What a caller who does not see the linked record is told: the record's own 404. */
const LINK_NOT_FOUND: Record<TaskLinkType, string> = { person: PERSON_NOT_FOUND, company: COMPANY_NOT_FOUND, conversation: CONVERSATION_NOT_FOUND };

const assigneeRefused = () => new ValidationError(ASSIGNEE_CANNOT_SEE, [{ field: 'assigneeId', message: ASSIGNEE_CANNOT_SEE }]);

/**
 * Tasks (issue 46, docs/adr/0140-tasks.md): who sees and changes one is task-query.ts. A task the
 * caller does not see is 404 (someone else's, an unknown id), one they see but may not change 403.
 * The caller must see the record they link (its own 404); the assignee must be an active user who
 * sees it too (400, nothing stored). Every change is audited (ids and field names, never the title)
 * and a task given to someone else tells them (task.assigned) in the same transaction.
 */
export class TaskService {
  constructor(
    private readonly deps: {
      tasks: TaskRepository;
      transactions: Transactions;
      audit: AuditService;
    },
  ) {}

  /** `assignee`: 'me' (the caller), 'any' (every task they see) or a user id (of the tasks they see). */
  list(userId: string, filter: TaskListFilter, page: PageRequest): Promise<Page<TaskRecord>> {
    return this.deps.tasks.list(userId, filter, page);
  }

  async get(userId: string, taskId: string): Promise<TaskRecord> {
    const [task] = await this.deps.tasks.visible(userId, [taskId]);
    if (!task) throw new NotFoundError(TASK_NOT_FOUND);
    return task;
  }

  async create(userId: string, input: TaskInput, meta: RequestMeta): Promise<TaskRecord> {
    const { tasks, transactions, audit } = this.deps;
    const link = linkOf(input);
    const assigneeId = input.assigneeId ?? userId;
    let taskId: string;
    try {
      taskId = await transactions.run(async (tx) => {
        if (link && !(await tasks.seesLink(userId, link, tx))) throw new NotFoundError(LINK_NOT_FOUND[link.type]);
        if (assigneeId !== userId && !(await tasks.mayBeAssigned(assigneeId, link, tx))) throw assigneeRefused();
        const id = await tasks.insert({ title: input.title, dueAt: input.dueAt, assigneeId, createdBy: userId, link }, tx);
        await audit.record({ action: AuditActions.taskCreated, userId, details: { taskId: id, assigneeId, linkType: link?.type ?? null, linkId: link?.id ?? null } }, meta, tx);
        if (assigneeId !== userId) await this.announceAssignment({ taskId: id, assigneeId, dueAt: input.dueAt, link }, userId, tx);
        return id;
      });
    } catch (err) {
      // The record (or the assignee) was deleted between the check and the insert.
      if (isForeignKeyViolation(err)) throw link ? new NotFoundError(LINK_NOT_FOUND[link.type]) : assigneeRefused();
      throw err;
    }
    return (await tasks.byId(userId, taskId))!;
  }

  /** Title, due time, status, assignee: by whoever may change the task (task-query.ts, TASK_EDITABLE), the row locked first. */
  async update(userId: string, taskId: string, changes: TaskChanges, meta: RequestMeta): Promise<TaskRecord> {
    const { tasks, transactions, audit } = this.deps;
    await transactions.run(async (tx) => {
      const task = await this.lockEditable(userId, taskId, tx);
      const changed = differences(task, changes);
      if (changed.assigneeId !== undefined && !(await tasks.mayBeAssigned(changed.assigneeId, task.link, tx))) throw assigneeRefused();
      const fields = Object.keys(changed);
      if (fields.length === 0) return;
      await tasks.update(taskId, changed, tx);
      await audit.record(
        {
          action: AuditActions.taskUpdated,
          userId,
          details: { taskId, fields, ...(changed.assigneeId ? { assigneeId: changed.assigneeId } : {}), ...(changed.status ? { status: changed.status } : {}) },
        },
        meta,
        tx,
      );
      if (changed.assigneeId && changed.assigneeId !== userId) {
        await this.announceAssignment({ taskId, assigneeId: changed.assigneeId, dueAt: changed.dueAt ?? task.dueAt, link: task.link }, userId, tx);
      }
    });
    // The task as it now stands, also to a caller who just gave it away (and no longer sees it).
    const task = await tasks.byId(userId, taskId);
    if (!task) throw new NotFoundError(TASK_NOT_FOUND);
    return task;
  }

  async remove(userId: string, taskId: string, meta: RequestMeta): Promise<void> {
    const { tasks, transactions, audit } = this.deps;
    await transactions.run(async (tx) => {
      await this.lockEditable(userId, taskId, tx);
      await tasks.remove(taskId, tx);
      await audit.record({ action: AuditActions.taskDeleted, userId, details: { taskId } }, meta, tx);
    });
  }

  /** A leaver's open tasks go to their successor (user deletion with a hand-over), in its transaction. */
  handOver(fromUserId: string, toUserId: string, tx: Tx): Promise<number> {
    return this.deps.tasks.handOver(fromUserId, toUserId, tx);
  }

  /** Lock, then check (a share removed meanwhile lets nothing through): 404 unseen, 403 seen without the right. */
  private async lockEditable(userId: string, taskId: string, tx: Tx): Promise<LockedTask> {
    const task = await this.deps.tasks.lock(userId, taskId, tx);
    if (!task?.visible) throw new NotFoundError(TASK_NOT_FOUND);
    if (!task.editable) throw new ForbiddenError(TASK_EDIT_DENIED);
    return task;
  }

  private async announceAssignment(task: { taskId: string; assigneeId: string; dueAt: Date; link: NewTask['link'] }, by: string, tx: Tx): Promise<void> {
    const { taskId, assigneeId, dueAt, link } = task;
    const accountId = link?.type === 'conversation' ? await this.deps.tasks.conversationAccount(link.id, tx) : null;
    await this.deps.tasks.emit('task.assigned', assigneeId, accountId, { taskId, assigneeId, assignedBy: by, dueAt: dueAt.toISOString() }, tx);
  }
}

function linkOf(input: TaskInput): NewTask['link'] {
  if (input.personId) return { type: 'person', id: input.personId };
  if (input.companyId) return { type: 'company', id: input.companyId };
  if (input.conversationId) return { type: 'conversation', id: input.conversationId };
  return null;
}

/** The asked changes that change something. */
function differences(task: LockedTask, changes: TaskChanges): TaskChanges {
  const out: TaskChanges = {};
  if (changes.title !== undefined && changes.title !== task.title) out.title = changes.title;
  if (changes.dueAt !== undefined && changes.dueAt.getTime() !== task.dueAt.getTime()) out.dueAt = changes.dueAt;
  if (changes.status !== undefined && changes.status !== task.status) out.status = changes.status;
  if (changes.assigneeId !== undefined && changes.assigneeId !== task.assigneeId) out.assigneeId = changes.assigneeId;
  return out;
}
