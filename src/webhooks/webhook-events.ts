import { EVENT_TYPES } from '../events/event-types.js';

/**
 * Outbox events a webhook may subscribe to (issue 48's list). Ids and the account only, like the live
 * events (user.* name the user): the receiver fetches what changed with an API token.
 */
const WANTED = [
  'email.created',
  'email.updated',
  'contact.created',
  'contact.updated',
  'conversation.updated',
  'comment.created',
  'task.due',
  'follow_up.due',
  'user.created',
  'user.disabled',
] as const;

export const WEBHOOK_EVENTS = WANTED.filter((t) => (EVENT_TYPES as readonly string[]).includes(t)) as unknown as readonly [(typeof WANTED)[number], ...(typeof WANTED)[number][]];
export type WebhookEvent = (typeof WANTED)[number];
