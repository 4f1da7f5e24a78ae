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

export interface ConversationRow {
  id: string;
  email_account_id: string;
  thread_id: string;
  message_count: number;
  last_message_at: Date;
  last_inbound_at: Date | null;
  last_outbound_at: Date | null;
  awaiting: boolean;
  status: 'open' | 'done';
  status_changed_at: Date | null;
  assignee_id: string | null;
  assignee_username: string | null;
  assignee_first_name: string | null;
  assignee_last_name: string | null;
  subject: string | null;
  unread_count: number;
  participants: Array<{ email: string; name: string | null }>;
}

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
