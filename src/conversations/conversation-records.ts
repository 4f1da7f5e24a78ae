import type { ColumnType, TableRow } from '../db/rows.js';

/** A conversation as the service hands it out (rows of email_threads, migrations 0028 and 0033). */
export interface ConversationRecord {
  id: string;
  emailAccountId: string;
  threadId: string;
  subject: string | null;
  participants: Array<{ email: string; name: string | null }>;
  messageCount: number;
  /** For the caller: their own reads, and the mailbox's flags if they own it. */
  unreadCount: number;
  lastMessageAt: Date;
  lastDirection: 'inbound' | 'outbound';
  waitingSince: Date | null;
  assignee: { id: string; username: string; firstName: string | null; lastName: string | null } | null;
  status: 'open' | 'done';
  statusChangedAt: Date | null;
}

/** CONVERSATION_COLUMNS (conversation-query.ts): the thread, its assignee (LEFT JOIN users) and what is computed from its emails. */
export type ConversationRow = TableRow<
  'email_threads',
  | 'id'
  | 'email_account_id'
  | 'thread_id'
  | 'message_count'
  | 'last_message_at'
  | 'last_inbound_at'
  | 'last_outbound_at'
  | 'awaiting'
  | 'status'
  | 'status_changed_at'
  | 'assignee_id',
  // A listed thread has at least one dated email; status is CHECKed to these two.
  { last_message_at: Date; status: 'open' | 'done' }
> & {
  assignee_username: ColumnType<'users', 'username'> | null;
  assignee_first_name: ColumnType<'users', 'first_name'>;
  assignee_last_name: ColumnType<'users', 'last_name'>;
  subject: ColumnType<'emails', 'subject'>;
  unread_count: number;
  participants: Array<{ email: string; name: string | null }>;
};

export function toConversationRecord(r: ConversationRow): ConversationRecord {
  // The newest email decides the direction; a reply sent the same second as the mail it answers counts as the answer.
  const outboundLast = r.last_outbound_at !== null && (r.last_inbound_at === null || r.last_outbound_at >= r.last_inbound_at);
  return {
    id: r.id,
    emailAccountId: r.email_account_id,
    threadId: r.thread_id,
    subject: r.subject,
    participants: r.participants,
    messageCount: r.message_count,
    unreadCount: r.unread_count,
    lastMessageAt: r.last_message_at,
    lastDirection: outboundLast ? 'outbound' : 'inbound',
    waitingSince: r.awaiting ? r.last_inbound_at : null,
    assignee: r.assignee_id && r.assignee_username ? { id: r.assignee_id, username: r.assignee_username, firstName: r.assignee_first_name, lastName: r.assignee_last_name } : null,
    status: r.status,
    statusChangedAt: r.status_changed_at,
  };
}

/** An internal comment on a conversation: never sent, never written to the mail server. */
export interface CommentRecord {
  id: string;
  conversationId: string;
  author: { id: string; username: string; firstName: string | null; lastName: string | null } | null;
  text: string;
  mentions: Array<{ id: string; username: string }>;
  createdAt: Date;
}

export const CONVERSATION_NOT_FOUND = 'Konverzácia neexistuje';
export const COMMENT_NOT_FOUND = 'Komentár neexistuje';
