import { z } from 'zod';
import { nullableTimestamp, timestamp, uuid } from '../shared/response-fields.js';
import { emailSchema } from '../emails/email-responses.js';
import { pagination } from '../shared/response-fields.js';

export const userRef = z
  .object({ id: uuid, username: z.string(), firstName: z.string().nullable(), lastName: z.string().nullable() })
  .meta({ id: 'UserRef', description: 'A staff member, as the directory shows them' });

/** One conversation of the team inbox: a thread of one mailbox. */
export const conversationSchema = z
  .object({
    id: uuid,
    emailAccountId: uuid,
    threadId: z.string(),
    subject: z.string().nullable().meta({ description: 'The subject of its first email' }),
    participants: z
      .array(z.object({ email: z.string(), name: z.string().nullable() }))
      .meta({ description: "Everyone in its From, To and Cc but the mailbox's own address, in order of appearance (at most 20)" }),
    messageCount: z.number().int().min(0),
    unreadCount: z.number().int().min(0).meta({ description: 'Inbound emails unread by you (each member has their own read state)' }),
    lastMessageAt: timestamp,
    lastDirection: z.enum(['inbound', 'outbound']).meta({ description: 'Whether the newest email was received or sent by the mailbox' }),
    waitingSince: nullableTimestamp.meta({ description: 'When the unanswered inbound email arrived, while it awaits a reply (open and last inbound); else null' }),
    assignee: userRef.nullable(),
    status: z.enum(['open', 'done']),
    statusChangedAt: nullableTimestamp,
  })
  .meta({ id: 'Conversation' });

export const commentSchema = z
  .object({
    id: uuid,
    conversationId: uuid,
    author: userRef.nullable().meta({ description: 'null once the author was deleted' }),
    text: z.string(),
    mentions: z.array(z.object({ id: uuid, username: z.string() })).meta({ description: 'The colleagues it notified (@username of members who can read the mailbox)' }),
    createdAt: timestamp,
  })
  .meta({ id: 'ConversationComment' });

export const conversationData = z.object({ conversation: conversationSchema });

export const conversationDetailData = z.object({
  conversation: conversationSchema,
  messages: z.array(emailSchema).meta({ description: 'Its emails, oldest first (paged by page and limit, as GET /api/emails/{id}/thread)' }),
  messagesPagination: pagination,
  comments: z.array(commentSchema).meta({ description: 'Internal comments, oldest first' }),
});

export const markConversationReadData = z.object({
  conversation: conversationSchema,
  marked: z.number().int().min(0).meta({ description: 'Emails newly marked read for you' }),
});

export const commentData = z.object({ comment: commentSchema });

export type ConversationResponse = z.input<typeof conversationSchema>;
export type CommentResponse = z.input<typeof commentSchema>;
export type ConversationData = z.input<typeof conversationData>;
export type ConversationDetailData = z.input<typeof conversationDetailData>;
export type MarkConversationReadData = z.input<typeof markConversationReadData>;
export type CommentData = z.input<typeof commentData>;
