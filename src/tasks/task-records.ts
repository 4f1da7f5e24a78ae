/** A task as the service hands it out (table tasks, migrations/0055-tasks.ts), seen by one caller. */
export interface TaskRecord {
  id: string;
  title: string;
  dueAt: Date;
  status: 'open' | 'done';
  completedAt: Date | null;
  /** When the due check announced it (task.due); null until then, and again after a new dueAt. */
  notifiedAt: Date | null;
  assignee: UserRef & { disabled: boolean };
  createdBy: UserRef | null;
  link: TaskLink | null;
  /** Whether the caller may change or delete it (task-query.ts, TASK_EDITABLE). */
  mayEdit: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface UserRef {
  id: string;
  username: string;
  firstName: string | null;
  lastName: string | null;
}

export const TASK_LINK_TYPES = ['person', 'company', 'conversation'] as const;

export type TaskLinkType = (typeof TASK_LINK_TYPES)[number];

/** The record a task is about, as the caller sees it now: `visible` false (and no name) when they no longer do. */
export interface TaskLink {
  type: TaskLinkType;
  id: string;
  visible: boolean;
  name: string | null;
  /** A conversation's mailbox, when visible. */
  emailAccountId: string | null;
}

export interface TaskRow {
  id: string;
  title: string;
  due_at: Date;
  status: 'open' | 'done';
  completed_at: Date | null;
  notified_at: Date | null;
  created_at: Date;
  updated_at: Date;
  assignee_id: string;
  assignee_username: string;
  assignee_first_name: string | null;
  assignee_last_name: string | null;
  assignee_disabled: boolean;
  created_by: string | null;
  creator_username: string | null;
  creator_first_name: string | null;
  creator_last_name: string | null;
  person_id: string | null;
  company_id: string | null;
  conversation_id: string | null;
  link_visible: boolean | null;
  link_name: string | null;
  link_account_id: string | null;
  may_edit: boolean;
}

export function toTaskRecord(r: TaskRow): TaskRecord {
  return {
    id: r.id,
    title: r.title,
    dueAt: r.due_at,
    status: r.status,
    completedAt: r.completed_at,
    notifiedAt: r.notified_at,
    assignee: { id: r.assignee_id, username: r.assignee_username, firstName: r.assignee_first_name, lastName: r.assignee_last_name, disabled: r.assignee_disabled },
    createdBy: r.created_by && r.creator_username ? { id: r.created_by, username: r.creator_username, firstName: r.creator_first_name, lastName: r.creator_last_name } : null,
    link: linkOf(r),
    mayEdit: r.may_edit,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function linkOf(r: TaskRow): TaskLink | null {
  const found: Array<[TaskLinkType, string | null]> = [
    ['person', r.person_id],
    ['company', r.company_id],
    ['conversation', r.conversation_id],
  ];
  const [type, id] = found.find(([, value]) => value !== null) ?? [];
  if (!type || !id) return null;
  const visible = r.link_visible === true;
  return { type, id, visible, name: visible ? r.link_name : null, emailAccountId: visible ? r.link_account_id : null };
}

export const TASK_NOT_FOUND = 'Úloha neexistuje';
export const TASK_EDIT_DENIED = 'Úlohu môže zmeniť len ten, kto ju zadal, jej riešiteľ, alebo pri konverzácii vlastník či editor schránky';
export const ASSIGNEE_CANNOT_SEE = 'Úlohu možno prideliť len aktívnemu používateľovi, ktorý vidí prepojený záznam';
