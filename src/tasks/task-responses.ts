import { z } from 'zod';
import { userRef } from '../conversations/conversation-responses.js';
import { nullableTimestamp, timestamp, uuid } from '../shared/response-fields.js';
import { TASK_LINK_TYPES } from './task-records.js';

export const taskLinkSchema = z
  .object({
    type: z.enum(TASK_LINK_TYPES),
    id: uuid,
    visible: z.boolean().meta({ description: 'Whether you see the record now (its GET answers); false: no name, and its own GET is 404 for you' }),
    name: z.string().nullable().meta({ description: "The person's or company's name, or the conversation's subject, as you see it; null when not visible" }),
    emailAccountId: uuid.nullable().meta({ description: "A conversation's mailbox (when visible); null otherwise" }),
  })
  .meta({ id: 'TaskLink', description: 'The record a task is about' });

/** One task as the caller sees it. */
export const taskSchema = z
  .object({
    id: uuid,
    title: z.string(),
    dueAt: timestamp,
    status: z.enum(['open', 'done']),
    completedAt: nullableTimestamp.meta({ description: 'When it was marked done; null while open' }),
    notifiedAt: nullableTimestamp.meta({ description: 'When its task.due was sent (null until it came due, and again after a new dueAt)' }),
    assignee: userRef.extend({ disabled: z.boolean().meta({ description: 'The assignee was disabled by an administrator: give the task to someone else' }) }),
    createdBy: userRef.nullable().meta({ description: 'Who created it; null once that user was deleted' }),
    link: taskLinkSchema.nullable().meta({ description: 'null: not linked (or the linked record was deleted)' }),
    mayEdit: z.boolean().meta({ description: 'Whether you may change or delete it (PATCH, DELETE)' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Task' });

export const taskData = z.object({ task: taskSchema });

export type TaskResponse = z.input<typeof taskSchema>;
export type TaskData = z.input<typeof taskData>;
