import type { CommentRecord, ConversationRecord } from './conversation-records.js';
import type { CommentResponse, ConversationResponse } from './conversation-responses.js';

export function presentConversation(c: ConversationRecord): ConversationResponse {
  return {
    id: c.id,
    emailAccountId: c.emailAccountId,
    threadId: c.threadId,
    subject: c.subject,
    participants: c.participants,
    messageCount: c.messageCount,
    unreadCount: c.unreadCount,
    lastMessageAt: c.lastMessageAt,
    lastDirection: c.lastDirection,
    waitingSince: c.waitingSince,
    assignee: c.assignee,
    status: c.status,
    statusChangedAt: c.statusChangedAt,
  };
}

export function presentComment(c: CommentRecord): CommentResponse {
  return { id: c.id, conversationId: c.conversationId, author: c.author, text: c.text, mentions: c.mentions, createdAt: c.createdAt };
}
