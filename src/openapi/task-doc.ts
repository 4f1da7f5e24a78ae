import { taskData, taskSchema } from '../tasks/task-responses.js';
import { createTaskBody, listTasksQuery, updateTaskBody } from '../tasks/task-schemas.js';
import { idParams } from '../shared/validation.js';
import type { AreaDoc } from './route-doc.js';

export const taskArea: AreaDoc = {
  tag: 'tasks',
  description:
    'To-dos with a title, a due time and an assignee, linked to at most one person, company or conversation (docs/adr/0140-tasks.md). ' +
    "A task is seen by its assignee and its creator, and a conversation's task also by every reader of that mailbox; it is changed and " +
    'deleted by its assignee, its creator, and for a conversation by its owner and editors (a viewer: 403). A task the caller does not see: 404. ' +
    'When due, the assignee gets task.due on the live stream (once, on every instance); a task given to a colleague sends them task.assigned',
  routes: [
    {
      method: 'get',
      path: '/api/tasks',
      operationId: 'listTasks',
      auth: 'user',
      summary: "List tasks: yours (default), a colleague's, or every task you see",
      description:
        "Ordered by dueAt, then id. assignee: me (default), a user id (that user's tasks among those you see: an unknown id gives an empty list), " +
        'or any. status: open (default), done or all.',
      query: listTasksQuery,
      success: { status: 200, description: 'A page of tasks', body: 'list', item: taskSchema },
    },
    {
      method: 'post',
      path: '/api/tasks',
      operationId: 'createTask',
      auth: 'user',
      summary: 'Create a task',
      description:
        'At most one of personId, companyId, conversationId (400). You must see the linked record (else its 404: Osoba / Firma / Konverzácia ' +
        'neexistuje). The assignee (default: you) must be an active user who sees it too, else 400 with nothing stored. Audited (task.created: ' +
        'ids, never the title); a task for someone else sends them task.assigned.',
      body: createTaskBody,
      errors: [404],
      success: { status: 201, description: 'The task', body: 'data', data: taskData },
    },
    {
      method: 'get',
      path: '/api/tasks/:id',
      operationId: 'getTask',
      auth: 'user',
      summary: 'One task',
      description: "A task you do not see (someone else's, an unknown id): 404.",
      params: idParams,
      success: { status: 200, description: 'The task as you see it', body: 'data', data: taskData },
    },
    {
      method: 'patch',
      path: '/api/tasks/:id',
      operationId: 'updateTask',
      auth: 'user',
      summary: 'Change a task: title, dueAt, status, assigneeId',
      description:
        "By its assignee, its creator, or for a conversation the mailbox's owner and editors (a reader without that right: 403; someone who does " +
        'not see it: 404). A new dueAt is announced again when it comes; done sets completedAt. A new assignee must be an active user who sees ' +
        'the linked record (400) and gets task.assigned. Audited (task.updated: the fields changed). The answer is the task as it now stands, ' +
        'also when you gave it away.',
      params: idParams,
      body: updateTaskBody,
      errors: [403, 404],
      success: { status: 200, description: 'The changed task', body: 'data', data: taskData },
    },
    {
      method: 'delete',
      path: '/api/tasks/:id',
      operationId: 'deleteTask',
      auth: 'user',
      summary: 'Delete a task',
      description: 'Who may change it may delete it (403 / 404 as PATCH). Audited (task.deleted).',
      params: idParams,
      errors: [403],
      success: { status: 204, description: 'Deleted; no content', body: 'none' },
    },
  ],
};
