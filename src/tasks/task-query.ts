/**
 * The SQL of the tasks area (docs/adr/0140-tasks.md), run by TaskRepository and by the timelines.
 * Who sees and changes a task is decided here, in the statement itself, for the caller bound as
 * `$userId`; nothing is cached, so a share removed applies to the very next query.
 *
 * - A task is seen by its assignee and its creator; a task of a conversation also by everyone who may
 *   read that conversation's mailbox (the team works the thread together, as a shared inbox does).
 * - It is changed (and deleted) by its assignee and its creator; a conversation's task also by whoever
 *   may triage the conversation (owner, or editor with canRead: who may assign the thread itself).
 * - Its link shows what the caller sees of the record now, by the record's own rule (people:
 *   person-visibility.ts, companies: company-visibility.ts, conversations: the mailbox's readEmails).
 */
import { companyShownTo, shownCompanyName } from '../companies/company-visibility.js';
import { accountsWith, rightCondition } from '../email-accounts/account-rights.js';
import { seesPerson, visibleContactsOf } from '../people/person-visibility.js';
import { TASK_LINK_TYPES, type TaskLinkType } from './task-records.js';

/**
 * The caller's membership of the mailbox of the conversation of task `t`, with a right: a probe per row
 * (a scalar subquery, which the planner keeps correlated; an EXISTS it turns into a hash of every
 * thread of the caller's mailboxes).
 */
const conversationRight = (right: 'readEmails' | 'triage') =>
  `(t.conversation_id IS NOT NULL AND coalesce((SELECT true FROM email_threads th JOIN email_account_members m ON m.email_account_id = th.email_account_id
     WHERE th.id = t.conversation_id AND m.user_id = $userId AND ${rightCondition(right)} LIMIT 1), false))`;

/**
 * Whether the caller holds `right` on the task `t`: its assignee and its creator always; a member of
 * the conversation's mailbox with that right too, planned only where a conversation's task can be
 * among the rows (`links`).
 */
const taskRight = (right: 'readEmails' | 'triage', links: readonly TaskLinkType[]): string =>
  `(t.assignee_id = $userId OR t.created_by = $userId${links.includes('conversation') ? ` OR ${conversationRight(right)}` : ''})`;

/** The task `t` is the caller's to see; of tasks whose link is one of `links`. */
export const taskVisible = (links: readonly TaskLinkType[]): string => taskRight('readEmails', links);

/** The task `t` is the caller's to see. */
export const TASK_VISIBLE = taskVisible(TASK_LINK_TYPES);

/** The task `t` is the caller's to change or delete. */
const TASK_EDITABLE = taskRight('triage', TASK_LINK_TYPES);

const READABLE_THREAD = (idSql: string) => `SELECT th.id, th.email_account_id, th.thread_id FROM email_threads th
  WHERE th.id = ${idSql} AND th.email_account_id IN (${accountsWith('readEmails')})`;

/** The person's name as the caller sees it: the shared name through mail, else their contact's name, else an address. */
const PERSON_NAME = `(SELECT coalesce(CASE WHEN max(c.last_email_at) IS NOT NULL THEN (SELECT p.name FROM people p WHERE p.id = t.person_id) END,
    (array_agg(c.name ORDER BY c.last_email_at DESC NULLS LAST, c.id) FILTER (WHERE c.name IS NOT NULL))[1], min(c.email))
   FROM ${visibleContactsOf('t.person_id')})`;

/** Each link's share of the three link columns: when a task has it, its sight, its name. */
const LINKS: Record<TaskLinkType, { when: string; visible: string; name: string }> = {
  person: { when: 't.person_id IS NOT NULL', visible: seesPerson('t.person_id'), name: PERSON_NAME },
  company: {
    when: 't.company_id IS NOT NULL',
    visible: `EXISTS (SELECT 1 FROM companies co WHERE co.id = t.company_id AND ${companyShownTo('co')})`,
    name: shownCompanyName('t.company_id'),
  },
  conversation: {
    when: 't.conversation_id IS NOT NULL',
    visible: `EXISTS (${READABLE_THREAD('t.conversation_id')})`,
    name: `(SELECT e.subject FROM (${READABLE_THREAD('t.conversation_id')}) th
         JOIN emails e ON e.email_account_id = th.email_account_id AND e.thread_id = th.thread_id AND e.date IS NOT NULL ORDER BY e.date, e.id LIMIT 1)`,
  },
};

/**
 * link_visible, link_name and link_account_id for tasks whose link is one of `links` (or none). Each
 * link's rule is a few subqueries the planner plans on every statement, whether a row needs it or not;
 * a caller that knows its tasks' links (a timeline: ADR 0173, amended) leaves the others out. A task of a link
 * left out would read as having none, so only a statement whose rows cannot have it may leave it out.
 */
function linkColumns(links: readonly TaskLinkType[]): string {
  const cases = (pick: (l: (typeof LINKS)[TaskLinkType]) => string) =>
    links.length === 0 ? 'NULL' : `CASE ${links.map((l) => `WHEN ${LINKS[l].when} THEN ${pick(LINKS[l])}`).join('\n       ')} END`;
  const accountOf = links.includes('conversation') ? `(SELECT th.email_account_id FROM (${READABLE_THREAD('t.conversation_id')}) th)` : 'NULL::uuid';
  return `
  ${cases((l) => l.visible)} AS link_visible,
  ${cases((l) => l.name)} AS link_name,
  ${accountOf} AS link_account_id`;
}

/** Every column of a task item for the caller (a TaskRow), from `tasks t`, for tasks whose link is one of `links`. */
const taskColumns = (links: readonly TaskLinkType[]): string => `t.id, t.title, t.due_at, t.status, t.completed_at, t.notified_at, t.created_at, t.updated_at,
  t.assignee_id, a.username AS assignee_username, a.first_name AS assignee_first_name, a.last_name AS assignee_last_name,
  (a.disabled_at IS NOT NULL) AS assignee_disabled,
  t.created_by, cr.username AS creator_username, cr.first_name AS creator_first_name, cr.last_name AS creator_last_name,
  t.person_id, t.company_id, t.conversation_id, ${linkColumns(links)}, ${taskRight('triage', links)} AS may_edit`;

/** Every column of a task item for the caller (a TaskRow), from `tasks t`. */
export const TASK_COLUMNS = taskColumns(TASK_LINK_TYPES);

/** The joins TASK_COLUMNS needs. */
export const TASK_JOINS = 'JOIN users a ON a.id = t.assignee_id LEFT JOIN users cr ON cr.id = t.created_by';

/**
 * The tasks of `$ids` the caller sees, as items (the order is the caller's to restore), of those
 * linked to one of `links` or to nothing: a task of another link is left out, never shown without its link.
 */
export const tasksByIds = (links: readonly TaskLinkType[]): string => {
  const others = TASK_LINK_TYPES.filter((l) => !links.includes(l)).map((l) => `AND NOT (${LINKS[l].when})`);
  return `SELECT ${taskColumns(links)} FROM tasks t ${TASK_JOINS} WHERE t.id = ANY($ids::uuid[]) AND ${taskVisible(links)} ${others.join(' ')}`;
};

/** One task by id whatever the caller's sight (the answer of a change the caller just made, who may have given it away). */
export const TASK_BY_ID = `SELECT ${TASK_COLUMNS} FROM tasks t ${TASK_JOINS} WHERE t.id = $taskId`;

export type TaskStatusFilter = 'open' | 'done' | 'all';

/** 'me', 'any' or a user id (GET /api/tasks?assignee=). */
export interface TaskListFilter {
  assignee: string;
  status: TaskStatusFilter;
}

/**
 * One page of the caller's tasks in due order (then id) and their count. Assigned to the caller: one
 * range of tasks_assignee_idx. Every task they see: their own two index ranges and their mailboxes'
 * conversation tasks, each task once.
 */
export function taskListQuery(filter: TaskListFilter): { pageSql: string; countSql: string } {
  const where = [filter.status === 'all' ? 'true' : 't.status = $status'];
  if (filter.assignee === 'me') where.push('t.assignee_id = $userId');
  else if (filter.assignee === 'any') {
    where.push(`t.id IN (SELECT x.id FROM tasks x WHERE x.assignee_id = $userId UNION SELECT x.id FROM tasks x WHERE x.created_by = $userId
      UNION SELECT x.id FROM tasks x JOIN email_threads th ON th.id = x.conversation_id
             WHERE x.conversation_id IS NOT NULL AND th.email_account_id IN (${accountsWith('readEmails')}))`);
  } else where.push('t.assignee_id = $assignee', TASK_VISIBLE);
  const condition = where.join(' AND ');
  return {
    pageSql: `SELECT ${TASK_COLUMNS} FROM tasks t ${TASK_JOINS} WHERE ${condition} ORDER BY t.due_at, t.id LIMIT $limit OFFSET $offset`,
    countSql: `SELECT count(*)::int AS total FROM tasks t WHERE ${condition}`,
  };
}

/** The task `$taskId` locked for a change, with the caller's sight of it and right on it (no row: it does not exist). */
export const LOCK_TASK = `SELECT t.id, t.title, t.due_at, t.assignee_id, t.status, t.person_id, t.company_id, t.conversation_id,
    ${TASK_VISIBLE} AS visible, ${TASK_EDITABLE} AS editable
  FROM tasks t WHERE t.id = $taskId FOR UPDATE OF t`;

/**
 * Whether the user bound as `$userId` sees the record of a link (bind `$linkId`), by the record's own
 * rule: the caller (404 when not) and an assignee (400 when not) are asked the same question.
 */
export function linkSeen(type: TaskLinkType | null): string {
  switch (type) {
    case 'person':
      return seesPerson('$linkId');
    case 'company':
      return `EXISTS (SELECT 1 FROM companies co WHERE co.id = $linkId AND ${companyShownTo('co')})`;
    case 'conversation':
      return `EXISTS (${READABLE_THREAD('$linkId')})`;
    default:
      return 'true';
  }
}

/** An assignee must be an active user and see the linked record (bind `$userId`: the would-be assignee). */
export const mayBeAssigned = (type: TaskLinkType | null): string =>
  `SELECT (EXISTS (SELECT 1 FROM users u WHERE u.id = $userId AND u.disabled_at IS NULL) AND ${linkSeen(type)}) AS ok`;
