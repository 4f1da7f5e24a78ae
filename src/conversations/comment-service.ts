import type { Transactions } from '../db/transactions.js';
import { ForbiddenError, NotFoundError } from '../errors/app-errors.js';
import { isForeignKeyViolation } from '../db/db-errors.js';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { CommentRepository } from './comment-repository.js';
import { COMMENT_NOT_FOUND, CONVERSATION_NOT_FOUND, type CommentRecord } from './conversation-records.js';
import type { ConversationRepository } from './conversation-repository.js';
import type { ConversationService } from './conversation-service.js';

/** At most this many distinct @mentions are looked up per comment. */
const MAX_MENTIONS = 20;

/**
 * `@username` words of a comment text: a username's own characters (user-schemas.ts), not preceded by
 * one (an address like jana@firma.sk mentions nobody). A trailing dot ends a sentence, not a name.
 */
export function mentionedUsernames(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(/(?<![A-Za-z0-9._@-])@([A-Za-z0-9._@-]{3,64})/g)) {
    names.add(match[1].toLowerCase());
    names.add(match[1].replace(/[._@-]+$/, '').toLowerCase());
    if (names.size >= MAX_MENTIONS * 2) break;
  }
  return [...names].filter((n) => n.length >= 3);
}

/**
 * Internal comments on conversations: anyone who may read the conversation reads and writes them
 * (viewers included: a note to colleagues changes no mail); only its author deletes one. Never sent
 * as mail, never written to the mail server. Every reader's stream gets comment.created; a mentioned
 * reader (only those who can read the mailbox count) also gets comment.mentioned, for them alone.
 */
export class CommentService {
  constructor(
    private readonly deps: {
      comments: CommentRepository;
      conversations: ConversationRepository;
      conversationService: ConversationService;
      audit: AuditService;
      transactions: Transactions;
    },
  ) {}

  async list(userId: string, conversationId: string): Promise<CommentRecord[]> {
    await this.deps.conversationService.readable(userId, conversationId);
    return this.deps.comments.list(conversationId);
  }

  async add(userId: string, conversationId: string, text: string, meta: RequestMeta): Promise<CommentRecord> {
    const { comments, conversations, conversationService, audit, transactions } = this.deps;
    const { conversation } = await conversationService.readable(userId, conversationId);
    const accountId = conversation.emailAccountId;
    try {
      return await transactions.run(async (tx) => {
        const mentioned = await conversations.readersByUsername(accountId, mentionedUsernames(text), tx);
        const comment = await comments.create(
          conversationId,
          userId,
          text,
          mentioned.map((m) => m.id),
          tx,
        );
        const payload = { conversationId, commentId: comment.id, emailAccountId: accountId };
        await conversations.emit('comment.created', accountId, payload, tx);
        for (const member of mentioned) await conversations.emit('comment.mentioned', accountId, { ...payload, userId: member.id }, tx, member.id);
        await audit.record({ action: AuditActions.commentCreated, userId, details: { conversationId, commentId: comment.id, mentions: mentioned.length } }, meta, tx);
        return comment;
      });
    } catch (err) {
      // The thread went away (its last email deleted) between the check and the insert.
      if (isForeignKeyViolation(err)) throw new NotFoundError(CONVERSATION_NOT_FOUND);
      throw err;
    }
  }

  async remove(userId: string, conversationId: string, commentId: string, meta: RequestMeta): Promise<void> {
    const { comments, conversationService, audit, transactions } = this.deps;
    await conversationService.readable(userId, conversationId);
    await transactions.run(async (tx) => {
      const found = await comments.find(conversationId, commentId, tx);
      if (!found) throw new NotFoundError(COMMENT_NOT_FOUND);
      if (found.authorId !== userId) throw new ForbiddenError('Komentár môže zmazať len jeho autor');
      await comments.remove(commentId, tx);
      await audit.record({ action: AuditActions.commentDeleted, userId, details: { conversationId, commentId } }, meta, tx);
    });
  }
}
