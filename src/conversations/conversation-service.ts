import type { Transactions } from '../db/transactions.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors/app-errors.js';
import { totalOrDenied } from '../email-accounts/account-access.js';
import { deniedMessage } from '../email-accounts/account-rights.js';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { EmailRecord } from '../emails/email-records.js';
import type { EmailRepository } from '../emails/email-repository.js';
import type { EmailService } from '../emails/email-service.js';
import { boundedTotal, type Page, type PageRequest } from '../shared/pagination.js';
import type { ConversationFilter } from './conversation-query.js';
import { CONVERSATION_NOT_FOUND, type ConversationRecord } from './conversation-records.js';
import type { ConversationRepository, FoundConversation } from './conversation-repository.js';

export interface ConversationListOptions extends Omit<ConversationFilter, 'assignee'> {
  /** 'me', 'none' or a user id. */
  assignee?: string;
}

export interface ConversationChanges {
  assigneeId?: string | null;
  status?: 'open' | 'done';
}

const ASSIGNEE_CANNOT_READ = 'Konverzáciu možno prideliť len aktívnemu používateľovi, ktorý môže čítať emaily tejto schránky';

/**
 * The team inbox (docs/adr/0129-team-inbox.md): conversations of the mailboxes the caller may read,
 * their assignee and status (owner and editor), and the caller's own read state. A conversation of an
 * account the caller may not read is "not found" (no existence leak), as an email is.
 */
export class ConversationService {
  constructor(
    private readonly deps: {
      conversations: ConversationRepository;
      emails: EmailRepository;
      emailService: EmailService;
      audit: AuditService;
      transactions: Transactions;
    },
  ) {}

  async list(userId: string, options: ConversationListOptions, page: PageRequest): Promise<Page<ConversationRecord>> {
    const assignee = options.assignee === 'me' ? userId : options.assignee;
    const { items, hasNext, count } = await this.deps.conversations.list(userId, { ...options, assignee }, page);
    return { ...boundedTotal(totalOrDenied(count, 'readEmails')), items, hasNext };
  }

  /**
   * The first `limit` conversations of the list (same scope, same order), without its total: the
   * search box (src/search) shows a few and counts none, and a total of a common word's threads
   * tests up to 10,000 threads.
   */
  async firstMatches(userId: string, options: Omit<ConversationListOptions, 'assignee' | 'emailAccountId'>, limit: number): Promise<ConversationRecord[]> {
    return this.deps.conversations.firstMatches(userId, options, limit);
  }

  /** The conversation and its messages (oldest first, as the thread endpoint pages them). */
  async get(userId: string, conversationId: string, page: PageRequest): Promise<{ conversation: ConversationRecord; messages: Page<EmailRecord> }> {
    const { conversation } = await this.readable(userId, conversationId);
    const messages = await this.deps.emails.threadPage(conversation.emailAccountId, conversation.threadId, page);
    const attachments = await this.deps.emails.attachmentsOf(messages.items.map((e) => e.id));
    for (const item of messages.items) item.attachments = attachments.get(item.id) ?? [];
    return { conversation, messages };
  }

  /**
   * A conversation the caller may read, else 404 (not a member, or a member without can_read: the
   * conversation is mail, and mail they may not read does not exist for them).
   */
  async readable(userId: string, conversationId: string): Promise<FoundConversation> {
    const found = await this.deps.conversations.find(userId, conversationId);
    if (!found?.allowed) throw new NotFoundError(CONVERSATION_NOT_FOUND);
    return found;
  }

  /** Assignee and / or status, by an owner or editor; the assignee must be able to read the mailbox. Audited, announced. */
  async update(userId: string, conversationId: string, changes: ConversationChanges, meta: RequestMeta): Promise<ConversationRecord> {
    const { conversations, audit, transactions } = this.deps;
    await transactions.run(async (tx) => {
      const found = await conversations.find(userId, conversationId, tx);
      if (!found?.allowed) throw new NotFoundError(CONVERSATION_NOT_FOUND);
      if (!found.mayTriage) throw new ForbiddenError(deniedMessage('triage'));
      const before = await conversations.lock(conversationId, tx);
      if (!before) throw new NotFoundError(CONVERSATION_NOT_FOUND);
      if (changes.assigneeId) {
        const [reader] = await conversations.readers(before.emailAccountId, [changes.assigneeId], tx);
        if (!reader) throw new ValidationError(ASSIGNEE_CANNOT_READ);
      }
      const changed: ConversationChanges = {};
      if (changes.assigneeId !== undefined && changes.assigneeId !== before.assigneeId) changed.assigneeId = changes.assigneeId;
      if (changes.status !== undefined && changes.status !== before.status) changed.status = changes.status;
      if (Object.keys(changed).length === 0) return;
      await conversations.update(conversationId, changed, tx);
      await conversations.emit(
        'conversation.updated',
        before.emailAccountId,
        { conversationId, emailAccountId: before.emailAccountId, changes: Object.keys(changed).map((k) => (k === 'assigneeId' ? 'assignee' : k)) },
        tx,
      );
      await audit.record({ action: AuditActions.conversationUpdated, userId, details: { conversationId, emailAccountId: before.emailAccountId, ...changed } }, meta, tx);
    });
    return (await this.readable(userId, conversationId)).conversation;
  }

  /**
   * Marks every inbound email of the thread read for the caller (email_reads); for the mailbox's owner
   * also the mailbox's flags, written back to the mail server after the commit. Announced to the
   * caller's own streams only: nobody else's unread count changed.
   */
  async markRead(userId: string, conversationId: string): Promise<{ marked: number; conversation: ConversationRecord }> {
    const { conversations, transactions, emailService } = this.deps;
    const { conversation } = await this.readable(userId, conversationId);
    const { marked, flagged } = await transactions.run(async (tx) => {
      const result = await conversations.markRead(userId, conversationId, tx);
      if (result.marked > 0 || result.flagged.length > 0) {
        await conversations.emit(
          'conversation.updated',
          conversation.emailAccountId,
          { conversationId, emailAccountId: conversation.emailAccountId, changes: ['read'] },
          tx,
          userId,
        );
      }
      return result;
    });
    if (flagged.length > 0) await emailService.pushAndWait(userId, new Map([[conversation.emailAccountId, flagged.map((f) => f.id)]]));
    return { marked, conversation: (await this.readable(userId, conversationId)).conversation };
  }
}
