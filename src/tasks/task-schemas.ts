import { z } from 'zod';
import { hasUnsafeNameCharacters, unsafeNameMessage } from '../shared/text-safety.js';
import { changeBody, paginationQuery } from '../shared/validation.js';

/** Bound of a title, also a CHECK of migrations/0055-tasks.ts. */
export const MAX_TASK_TITLE = 500;

const DUE_MESSAGE = 'dueAt musí byť dátum a čas v ISO 8601 s časovou zónou (napr. 2026-05-04T09:00:00+02:00)';
/** As a follow-up's (src/follow-ups/follow-up-schemas.ts): a typo (year 20266) is refused rather than stored. */
const EARLIEST = Date.UTC(2000, 0, 1);
const LATEST = Date.UTC(2100, 0, 1);

export const ONE_LINK_MESSAGE = 'Úloha môže byť prepojená najviac s jedným záznamom: personId, companyId alebo conversationId';

/** A title others see (the assignee, the team of a conversation): one line, no control or bidi characters (src/shared/text-safety.ts). */
const title = z
  .string({ error: 'Názov úlohy musí byť text' })
  .trim()
  .min(1, 'Názov úlohy je povinný')
  .max(MAX_TASK_TITLE, `Názov úlohy môže mať najviac ${MAX_TASK_TITLE} znakov`)
  .refine((v) => !hasUnsafeNameCharacters(v), unsafeNameMessage('Názov úlohy'))
  .meta({ description: `What is to be done: 1-${MAX_TASK_TITLE} characters, one line` });

const dueAt = z.iso
  .datetime({ offset: true, error: DUE_MESSAGE })
  .transform((text) => new Date(text))
  .refine((d) => d.getTime() >= EARLIEST && d.getTime() < LATEST, 'dueAt musí byť medzi rokmi 2000 a 2099')
  .meta({ description: 'When it is due: ISO 8601 date and time with an offset (Z or +02:00); a past time is due at once' });

const assigneeId = z.uuid('assigneeId musí byť identifikátor používateľa');

/**
 * POST /api/tasks. At most one link (also a CHECK of the table). Strict like every body: an unknown
 * field is a 400.
 */
export const createTaskBody = z
  .strictObject({
    title,
    dueAt,
    assigneeId: assigneeId.optional().meta({
      description: 'Who does it (default: you): an active user who can see the linked record (else 400, nothing stored)',
    }),
    personId: z.uuid('Neplatný identifikátor osoby').optional().meta({ description: 'A person you see (else 404)' }),
    companyId: z.uuid('Neplatný identifikátor firmy').optional().meta({ description: 'A company you see (else 404)' }),
    conversationId: z.uuid('Neplatný identifikátor konverzácie').optional().meta({
      description: 'A conversation of a mailbox you may read (else 404); every reader of that mailbox then sees the task',
    }),
  })
  .refine((b) => [b.personId, b.companyId, b.conversationId].filter((v) => v !== undefined).length <= 1, { message: ONE_LINK_MESSAGE, path: ['personId'] })
  .meta({ description: 'A task links to at most one record: personId, companyId or conversationId (two or three: 400)' });

export const updateTaskBody = changeBody(
  z.strictObject({
    title: title.optional(),
    dueAt: dueAt.optional().meta({ description: 'A new due time; the task is announced again (task.due) when it comes' }),
    status: z.enum(['open', 'done'], { error: 'status musí byť open alebo done' }).optional().meta({ description: 'done: completed (completedAt set); open: reopened' }),
    assigneeId: assigneeId.optional().meta({ description: 'Give it to another active user who can see the linked record (else 400); they get task.assigned' }),
  }),
  'Zadajte aspoň jednu zmenu (title, dueAt, status, assigneeId)',
);

export const TASK_STATUS_FILTERS = ['open', 'done', 'all'] as const;

export const listTasksQuery = paginationQuery.extend({
  assignee: z
    .union([z.enum(['me', 'any']), z.uuid()], { error: 'assignee musí byť me, any alebo identifikátor používateľa' })
    .default('me')
    .meta({ description: 'me (default): assigned to you; a user id: assigned to that user, of the tasks you see; any: every task you see' }),
  status: z.enum(TASK_STATUS_FILTERS, { error: 'status musí byť open, done alebo all' }).default('open').meta({ description: 'open (default), done, or all' }),
});
