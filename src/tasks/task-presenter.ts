import type { TaskRecord } from './task-records.js';
import type { TaskResponse } from './task-responses.js';

export function presentTask(t: TaskRecord): TaskResponse {
  return {
    id: t.id,
    title: t.title,
    dueAt: t.dueAt,
    status: t.status,
    completedAt: t.completedAt,
    notifiedAt: t.notifiedAt,
    assignee: t.assignee,
    createdBy: t.createdBy,
    link: t.link,
    mayEdit: t.mayEdit,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}
