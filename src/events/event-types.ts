import { z } from 'zod';

/**
 * The live events of GET /api/events: the SSE `event:` names and the JSON of their `data:` lines.
 * They carry ids and the email account, never content: the app fetches what changed with the
 * ordinary endpoints. One schema per type (the OpenAPI document lists them; the generated client
 * exports them), and the TypeScript types the hub sends.
 *
 * Who writes them into the outbox (docs/architecture.md, "What the database does by itself"): no code
 * of src/ but follow_up.due. The rest are rows the database's own triggers insert in the writer's
 * transaction, current bodies in docs/schema.sql:
 *   email.created / email.updated / email.deleted   triggers emails_events_insert/_update/_delete,
 *                                                   function crm_events_emails() (migration 0021)
 *   contact.created / contact.updated / contact.deleted   contacts_events_*, crm_events_contacts() (0030)
 *   sync.status                                     mail_sync_states_events_update, crm_events_sync_states() (0021)
 *   membership.changed                              email_account_members_events_*, crm_events_members() (0021)
 *   follow_up.due                                   src/follow-ups/follow-up-query.ts (claimed by the due job)
 *   task.due                                        src/tasks/task-due-query.ts (claimed by the tasks' due job)
 *   task.assigned                                   src/tasks/task-service.ts (TaskRepository.emit)
 *   user.created / user.disabled                    src/users/user-events.ts (webhooks only)
 * A payload field added here must be added to the function's jsonb_build_object by a migration.
 */
export const EVENT_TYPES = [
  'email.created',
  'email.updated',
  'email.deleted',
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'sync.status',
  'membership.changed',
  'follow_up.due',
  'conversation.updated',
  'comment.created',
  'comment.mentioned',
  'task.due',
  'task.assigned',
  'user.created',
  'user.disabled',
  'resync',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Types stored in the outbox (resync is made by the server for one stream, never stored). */
export type OutboxEventType = Exclude<EventType, 'resync'>;

const uuid = () => z.uuid();

/**
 * A statement's rows of one account: `ids` when it touched at most 50 of them, else only `count` (a
 * first sync, an account's deletion): reload the list instead of fetching one by one.
 */
const changedRows = (what: string, id: string, description: string) =>
  z
    .object({
      emailAccountId: uuid().meta({ description: 'The email account the rows belong to' }),
      count: z
        .number()
        .int()
        .min(1)
        .meta({ description: `How many ${what} changed in this one write` }),
      ids: z
        .array(uuid())
        .max(50)
        .optional()
        .meta({ description: `The ${what}' ids; absent when more than 50 changed at once (reload the list)` }),
    })
    .strict()
    .meta({ id, description });

export const emailCreatedEvent = changedRows('emails', 'EmailCreatedEvent', 'New emails stored (sync, sending). Only to members with canRead.');
export const emailUpdatedEvent = changedRows(
  'emails',
  'EmailUpdatedEvent',
  'Read state changed (here, by a colleague, or on the mail server) or the email was filed under another contact. Only to members with canRead.',
);
export const emailDeletedEvent = changedRows('emails', 'EmailDeletedEvent', 'Emails gone (deleted on the server, their contact or account deleted). Only to members with canRead.');
export const contactCreatedEvent = changedRows('contacts', 'ContactCreatedEvent', 'New contacts (sync or by hand).');
export const contactUpdatedEvent = changedRows('contacts', 'ContactUpdatedEvent', 'Name, address or notes of contacts changed.');
export const contactDeletedEvent = changedRows('contacts', 'ContactDeletedEvent', 'Contacts deleted.');

export const syncStatusEvent = z
  .object({
    emailAccountId: uuid(),
    status: z.enum(['idle', 'syncing', 'ok', 'error', 'auth_failed']),
    lastSuccessAt: z.iso.datetime({ offset: true }).nullable().meta({ description: 'When the last run succeeded' }),
  })
  .strict()
  .meta({ id: 'SyncStatusEvent', description: "The account's sync status changed (a run began, ended, failed)." });

export const membershipChangedEvent = z
  .object({
    emailAccountId: uuid(),
    userId: uuid().meta({ description: 'You: only your own memberships are sent' }),
    change: z.enum(['added', 'updated', 'removed']),
    role: z.enum(['owner', 'editor', 'viewer']).nullable().meta({ description: 'Your role now; null once removed' }),
    canRead: z.boolean(),
    canSend: z.boolean(),
  })
  .strict()
  .meta({
    id: 'MembershipChangedEvent',
    description: 'An account was shared with you, your rights on it changed, or it was unshared (or deleted). Reload your account list.',
  });

export const followUpDueEvent = z
  .object({
    followUpId: uuid(),
    contactId: uuid().meta({ description: 'The contact to follow up' }),
    emailAccountId: uuid().meta({ description: "The contact's email account" }),
    dueAt: z.iso.datetime({ offset: true }).meta({ description: 'When it came due' }),
  })
  .strict()
  .meta({
    id: 'FollowUpDueEvent',
    description:
      'One of your follow-ups came due (GET /api/follow-ups?status=due lists it): sent once, within FOLLOW_UP_CHECK_SECONDS of dueAt, only to you, ' +
      'and only when the contact is still visible to you and has not written since the follow-up was set (answered). A PUT with a new dueAt is announced again.',
  });

// Written by src/conversations (ConversationService.update / markRead, CommentService.add) in the
// change's own transaction, through ConversationRepository.emit.
export const conversationUpdatedEvent = z
  .object({
    conversationId: uuid(),
    emailAccountId: uuid(),
    changes: z
      .array(z.enum(['assignee', 'status', 'read']))
      .meta({ description: 'What changed: assignee or status (to every reader of the mailbox), read (your own read state: to you only)' }),
  })
  .strict()
  .meta({
    id: 'ConversationUpdatedEvent',
    description: 'A conversation was assigned, closed or reopened by someone (GET /api/conversations/{id} shows it now), or you read it on another device.',
  });

export const commentCreatedEvent = z
  .object({ conversationId: uuid(), commentId: uuid(), emailAccountId: uuid() })
  .strict()
  .meta({ id: 'CommentCreatedEvent', description: 'An internal comment was added to a conversation. Only to members with canRead.' });

export const commentMentionedEvent = z
  .object({ conversationId: uuid(), commentId: uuid(), emailAccountId: uuid(), userId: uuid().meta({ description: 'You: only the mentioned member gets it' }) })
  .strict()
  .meta({ id: 'CommentMentionedEvent', description: 'A colleague mentioned you (@username) in a comment of a conversation you may read.' });

// Written by src/tasks: task.due by the due job's claim (task-due-query.ts), task.assigned by TaskService.
export const taskDueEvent = z
  .object({
    taskId: uuid(),
    assigneeId: uuid().meta({ description: 'You: only the assignee gets it on the live stream' }),
    dueAt: z.iso.datetime({ offset: true }).meta({ description: 'When it came due' }),
    personId: uuid().nullable().meta({ description: 'The linked person, if any' }),
    companyId: uuid().nullable().meta({ description: 'The linked company, if any' }),
    conversationId: uuid().nullable().meta({ description: 'The linked conversation, if any' }),
    emailAccountId: uuid().nullable().meta({ description: "The linked conversation's mailbox, if any" }),
  })
  .strict()
  .meta({
    id: 'TaskDueEvent',
    description:
      'A task assigned to you came due (GET /api/tasks/{taskId}): sent once, within FOLLOW_UP_CHECK_SECONDS of dueAt, only to you; not for a task ' +
      'done before its time. A PATCH with a new dueAt is announced again. Also a webhook event.',
  });

export const taskAssignedEvent = z
  .object({
    taskId: uuid(),
    assigneeId: uuid().meta({ description: 'You: only the new assignee gets it' }),
    assignedBy: uuid().meta({ description: 'Who gave it to you' }),
    dueAt: z.iso.datetime({ offset: true }),
  })
  .strict()
  .meta({ id: 'TaskAssignedEvent', description: 'A colleague created a task for you or gave you theirs (GET /api/tasks/{taskId}).' });
/** Staff lifecycle (src/users/user-events.ts): for webhooks only, never on a stream of GET /api/events (no mailbox of theirs). */
export const userCreatedEvent = z
  .object({ userId: uuid(), username: z.string(), role: z.enum(['admin', 'member']) })
  .meta({ id: 'UserCreatedEvent', description: 'A staff user was created (webhooks only; not sent on GET /api/events).' });
export const userDisabledEvent = z
  .object({ userId: uuid(), username: z.string() })
  .meta({ id: 'UserDisabledEvent', description: 'A staff user was disabled (webhooks only; not sent on GET /api/events).' });

export const resyncEvent = z
  .object({ reason: z.enum(['window_exceeded', 'unknown_event_id', 'outbox_gap']) })
  .strict()
  .meta({
    id: 'ResyncEvent',
    description: 'What you missed is no longer kept (Last-Event-ID older than the window, unknown, or events lost): reload every list you show.',
  });

export const EVENT_SCHEMAS = {
  'email.created': emailCreatedEvent,
  'email.updated': emailUpdatedEvent,
  'email.deleted': emailDeletedEvent,
  'contact.created': contactCreatedEvent,
  'contact.updated': contactUpdatedEvent,
  'contact.deleted': contactDeletedEvent,
  'sync.status': syncStatusEvent,
  'membership.changed': membershipChangedEvent,
  'follow_up.due': followUpDueEvent,
  'conversation.updated': conversationUpdatedEvent,
  'comment.created': commentCreatedEvent,
  'comment.mentioned': commentMentionedEvent,
  'task.due': taskDueEvent,
  'task.assigned': taskAssignedEvent,
  'user.created': userCreatedEvent,
  'user.disabled': userDisabledEvent,
  resync: resyncEvent,
} as const satisfies Record<EventType, z.ZodType>;

export type EventData = { [T in EventType]: z.infer<(typeof EVENT_SCHEMAS)[T]> };
export type MembershipChange = EventData['membership.changed'];

/** One row of the outbox as the hub reads it. */
export interface OutboxEvent {
  id: number;
  type: OutboxEventType;
  emailAccountId: string | null;
  /** membership.changed: the member it concerns; follow_up.due: the follow-up's owner; task.*: the assignee. */
  userId: string | null;
  payload: Record<string, unknown>;
  createdAt: Date;
}
