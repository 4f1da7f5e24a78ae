import { z } from 'zod';
import { booleanText } from '../emails/email-schemas.js';
import { paginationQuery, searchText } from '../shared/validation.js';

/** GET /api/conversations: the team inbox over the mailboxes the caller may read. */
export const listConversationsQuery = paginationQuery.extend({
  emailAccountId: z.uuid('Neplatný identifikátor emailového účtu').optional(),
  assignee: z
    .union([z.enum(['me', 'none']), z.uuid()], { error: 'assignee musí byť me, none alebo identifikátor používateľa' })
    .optional()
    .meta({ description: 'me: assigned to you; none: unassigned; a user id: assigned to that user; absent: any' }),
  status: z.enum(['open', 'done', 'all'], { error: 'status musí byť open, done alebo all' }).default('open').meta({ description: 'open (default), done, or all' }),
  unread: booleanText.optional().meta({ description: 'true: only conversations with mail unread by you; false: only those you have read whole' }),
  search: searchText
    .regex(/[\p{L}\p{N}]/u, 'Hľadaný text musí obsahovať písmeno alebo číslicu')
    .optional()
    .meta({ description: 'Words in the subject, participants or text of its emails; accent- and case-insensitive, each word also as a prefix (a number only as itself)' }),
});

/** GET /api/conversations/{id}: its messages paged as the thread endpoint pages them. */
export const conversationQuery = paginationQuery;

export const updateConversationBody = z
  .strictObject({
    assigneeId: z
      .uuid('assigneeId musí byť identifikátor používateľa alebo null')
      .nullable()
      .optional()
      .meta({ description: 'Who handles it: a user who can read the mailbox; null: nobody' }),
    status: z
      .enum(['open', 'done'], { error: 'status musí byť open alebo done' })
      .optional()
      .meta({ description: 'done takes it off awaiting-reply; new inbound mail reopens it' }),
  })
  .refine((b) => b.assigneeId !== undefined || b.status !== undefined, { message: 'Zadajte assigneeId alebo status' })
  .meta({ minProperties: 1 });

/** Bound of a comment, also a CHECK of migrations/0033-team-inbox.ts. */
export const MAX_COMMENT = 5000;

export const createCommentBody = z.strictObject({
  text: z
    .string({ error: 'Text komentára je povinný' })
    .trim()
    .min(1, 'Text komentára je prázdny')
    .max(MAX_COMMENT, `Komentár môže mať najviac ${MAX_COMMENT} znakov`)
    .meta({ description: 'The note; @username of a colleague who can read the mailbox notifies them (comment.mentioned)' }),
});

export const commentParams = z.object({
  id: z.uuid('Neplatný identifikátor'),
  commentId: z.uuid('Neplatný identifikátor komentára'),
});
