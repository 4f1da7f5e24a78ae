import { z } from 'zod';
import { followUpSchema } from '../follow-ups/follow-up-responses.js';
import { pagination, timestamp, uuid } from '../shared/response-fields.js';
import { taskSchema } from '../tasks/task-responses.js';

export const timelineEmailSchema = z
  .object({
    id: uuid.meta({ description: 'The copy shown (GET /api/emails/{id}): the newest, then one in a mailbox you own, then the lowest id' }),
    emailAccountId: uuid,
    conversationId: uuid.nullable().meta({ description: 'Its conversation in that mailbox (GET /api/conversations/{id}), if its thread has one' }),
    threadId: z.string().nullable(),
    messageId: z.string().nullable(),
    subject: z.string().nullable(),
    from: z.string().nullable(),
    to: z.string().nullable(),
    date: timestamp,
    direction: z.enum(['inbound', 'outbound']),
    hasAttachments: z.boolean(),
    preview: z.string().meta({ description: 'About 200 characters of the body, whitespace collapsed' }),
    copies: z
      .array(z.object({ id: uuid, emailAccountId: uuid }))
      .min(1)
      .meta({ description: 'Every copy of the message (same Message-ID) in a mailbox you may read, the shown one included' }),
  })
  .meta({ id: 'TimelineEmail', description: 'An email of the timeline: one item per message, however many of your mailboxes hold it' });

const at = timestamp.meta({ description: "The item's time: an email's date, a task's dueAt (completedAt once done), a follow-up's dueAt" });

export const timelineItemSchema = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('email'), at, email: timelineEmailSchema }).meta({ id: 'TimelineEmailItem' }),
    z.object({ type: z.literal('task'), at, task: taskSchema }).meta({ id: 'TimelineTaskItem' }),
    z.object({ type: z.literal('follow_up'), at, followUp: followUpSchema }).meta({ id: 'TimelineFollowUpItem' }),
  ])
  .meta({ id: 'TimelineItem', description: 'One item of a timeline; `type` says which of email, task and followUp it carries' });

export const timelinePagination = pagination
  .extend({
    total: z.number().int().min(0).meta({ description: 'Not counted: the items up to this page, plus one when another follows (exact only on the last page)' }),
    totalExact: z.boolean().meta({ description: 'True only on the last page reached by page numbers' }),
    nextCursor: z.string().nullable().meta({ description: 'Pass as cursor= for the next page (null on the last)' }),
  })
  .meta({ id: 'TimelinePagination' });

export const timelineData = z.object({ items: z.array(timelineItemSchema), pagination: timelinePagination });

export type TimelineItemResponse = z.input<typeof timelineItemSchema>;
export type TimelineData = z.input<typeof timelineData>;
