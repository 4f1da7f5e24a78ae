import type { Sql } from '../db/sql.js';
import { EVENTS_CHANNEL } from '../events/outbox-repository.js';
import type { Tx } from '../db/transactions.js';
import type { CountRow } from '../email-accounts/account-access.js';
import { accountsWith } from '../email-accounts/account-rights.js';
import { cutPage, type PageRequest } from '../shared/pagination.js';
import { SearchWordStatistics } from '../emails/search-terms.js';
import { conversationListQuery, ONE_CONVERSATION, type ConversationFilter } from './conversation-query.js';
import { toConversationRecord, type ConversationRecord, type ConversationRow } from './conversation-records.js';

/** A conversation with the caller's rights on it (readEmails, triage). */
export interface FoundConversation {
  conversation: ConversationRecord;
  allowed: boolean;
  mayTriage: boolean;
}

/**
 * All data access of conversations (rows of email_threads) and the members' own read marks
 * (email_reads). Every lookup is scoped by the caller's membership in SQL (conversation-query.ts).
 */
export class ConversationRepository {
  private readonly searchWords: SearchWordStatistics;

  constructor(private readonly sql: Sql) {
    this.searchWords = new SearchWordStatistics(sql);
  }

  async list(userId: string, filter: ConversationFilter, page: PageRequest) {
    const shares = filter.search ? await this.searchWords.shares() : new Map<string, number>();
    const { pageSql, countSql, bind } = conversationListQuery(userId, filter, page, shares);
    // One after the other: a request holds at most one pool connection at a time (ADR 0121).
    const rows = await this.sql.select<ConversationRow>(pageSql, bind);
    const count = await this.sql.one<CountRow>(countSql, bind);
    const cut = cutPage(rows, page);
    return { items: cut.rows.map(toConversationRecord), hasNext: cut.hasNext, count: count! };
  }

  /** The first page of the list (no account filter), without its total. */
  async firstMatches(userId: string, filter: ConversationFilter, limit: number): Promise<ConversationRecord[]> {
    const shares = filter.search ? await this.searchWords.shares() : new Map<string, number>();
    const { pageSql, bind } = conversationListQuery(userId, filter, { page: 1, limit }, shares);
    const rows = await this.sql.select<ConversationRow>(pageSql, bind);
    return cutPage(rows, { page: 1, limit }).rows.map(toConversationRecord);
  }

  /** The conversation if the caller is a member of its account (undefined otherwise), with their rights. */
  async find(userId: string, conversationId: string, tx?: Tx): Promise<FoundConversation | undefined> {
    const row = await this.sql.one<ConversationRow & { allowed: boolean; may_triage: boolean }>(ONE_CONVERSATION, { userId, conversationId }, tx);
    return row && { conversation: toConversationRecord(row), allowed: row.allowed, mayTriage: row.may_triage };
  }

  /** Locks the conversation's row for a change of assignee or status; false when it is gone. */
  async lock(conversationId: string, tx: Tx): Promise<{ emailAccountId: string; assigneeId: string | null; status: 'open' | 'done' } | undefined> {
    const row = await this.sql.one<{ email_account_id: string; assignee_id: string | null; status: 'open' | 'done' }>(
      'SELECT email_account_id, assignee_id, status FROM email_threads WHERE id = $conversationId FOR UPDATE',
      { conversationId },
      tx,
    );
    return row && { emailAccountId: row.email_account_id, assigneeId: row.assignee_id, status: row.status };
  }

  async update(conversationId: string, changes: { assigneeId?: string | null; status?: 'open' | 'done' }, tx: Tx): Promise<void> {
    const sets: string[] = [];
    if (changes.assigneeId !== undefined) sets.push('assignee_id = $assigneeId');
    if (changes.status !== undefined) sets.push('status = $status', 'status_changed_at = now()');
    if (sets.length === 0) return;
    await this.sql.execute(`UPDATE email_threads SET ${sets.join(', ')} WHERE id = $conversationId`, { conversationId, ...changes }, tx);
  }

  /** Whether the user is active and may read the account's emails: who can be an assignee or be mentioned. */
  async readers(accountId: string, userIds: readonly string[], tx?: Tx): Promise<Array<{ id: string; username: string }>> {
    if (userIds.length === 0) return [];
    return this.sql.select<{ id: string; username: string }>(
      `SELECT u.id, u.username FROM users u JOIN email_account_members m ON m.user_id = u.id AND m.email_account_id = $accountId
        WHERE u.id = ANY($userIds::uuid[]) AND m.can_read AND u.disabled_at IS NULL`,
      { accountId, userIds },
      tx,
    );
  }

  /** Readers of the account by (case-insensitive) username: the @mentions that reach someone. */
  async readersByUsername(accountId: string, usernames: readonly string[], tx?: Tx): Promise<Array<{ id: string; username: string }>> {
    if (usernames.length === 0) return [];
    return this.sql.select<{ id: string; username: string }>(
      `SELECT u.id, u.username FROM users u JOIN email_account_members m ON m.user_id = u.id AND m.email_account_id = $accountId
        WHERE lower(u.username) = ANY($usernames::text[]) AND m.can_read AND u.disabled_at IS NULL
        ORDER BY u.username`,
      { accountId, usernames: usernames.map((u) => u.toLowerCase()) },
      tx,
    );
  }

  /**
   * The caller's own read of every inbound email of the thread; for the owner also the mailbox's flag
   * (pending the write-back to the mail server, as any read mark). Answers the flagged emails.
   */
  async markRead(userId: string, conversationId: string, tx: Tx): Promise<{ marked: number; flagged: Array<{ id: string; emailAccountId: string }> }> {
    const marked = await this.sql.execute(
      `INSERT INTO email_reads (user_id, email_id)
       SELECT $userId, e.id FROM email_threads t JOIN emails e ON e.email_account_id = t.email_account_id AND e.thread_id = t.thread_id
        WHERE t.id = $conversationId AND NOT e.outbound
       ORDER BY e.id
       ON CONFLICT DO NOTHING`,
      { userId, conversationId },
      tx,
    );
    const flagged = await this.sql.select<{ id: string; email_account_id: string }>(
      `WITH target AS (
         SELECT e.id FROM email_threads t JOIN emails e ON e.email_account_id = t.email_account_id AND e.thread_id = t.thread_id
          WHERE t.id = $conversationId AND NOT e.is_read AND NOT e.outbound
            AND e.email_account_id IN (SELECT m.email_account_id FROM email_account_members m WHERE m.user_id = $userId AND m.role = 'owner')
            AND e.email_account_id IN (${accountsWith('markRead')})
          ORDER BY e.id FOR UPDATE OF e)
       UPDATE emails e SET is_read = true, read_pending = true, updated_at = now() FROM target WHERE e.id = target.id
       RETURNING e.id, e.email_account_id`,
      { userId, conversationId },
      tx,
    );
    return { marked, flagged: flagged.map((r) => ({ id: r.id, emailAccountId: r.email_account_id })) };
  }

  /** An event of the outbox (migration 0021) in the writer's transaction: for the account's readers, or one user. */
  async emit(type: string, accountId: string, payload: Record<string, unknown>, tx: Tx, userId: string | null = null): Promise<void> {
    await this.sql.execute(
      `INSERT INTO events (type, email_account_id, user_id, payload) VALUES ($type, $accountId, $userId, $payload::jsonb)`,
      { type, accountId, userId, payload: JSON.stringify(payload) },
      tx,
    );
    // The outbox's listeners look when told to (as the triggers of 0021 tell them).
    await this.sql.execute(`SELECT pg_notify('${EVENTS_CHANNEL}', '')`, {}, tx);
  }
}
