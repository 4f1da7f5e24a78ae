import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';
import type { CountRow } from '../email-accounts/account-access.js';
import { accountsWith, rightCondition } from '../email-accounts/account-rights.js';
import { COUNT_BOUND, cutPage, offsetOf, type Page, type PageRequest } from '../shared/pagination.js';
import { FULL_COLUMNS, searchCountIsTotal, type EmailFilter, type HitsFound, type SearchStrategy } from './email-query.js';
import { mailboxListQuery } from './awaiting-query.js';
import { HIT_BOUND, hitProbeSql, SearchWordStatistics, type WordShares } from './search-terms.js';
import { toAttachmentRecord, toEmailRecord, type AttachmentRecord, type AttachmentRow, type EmailRecord, type EmailRow } from './email-records.js';

/** What a search's probe decided: how the page finds its rows (the hits by id when few), and the total when the probe counted it. */
interface SearchProbe {
  how: SearchStrategy | HitsFound;
  total?: number;
}

/** An email whose read state still waits for the write-back to the mail server. */
export interface PendingReadState {
  id: string;
  jmap_id: string;
  is_read: boolean;
}

/**
 * All data access of the emails area: mailbox lists, full reads, threads and the read state with its
 * write-back bookkeeping (read_pending). Every lookup for a caller is scoped by the accounts whose
 * emails they may read or mark (account-rights.ts), never by the rows' user_id (the owner).
 */
export class EmailRepository {
  /** How common search words are, for the search conditions (search-terms.ts). */
  private readonly searchWords: SearchWordStatistics;

  constructor(private readonly sql: Sql) {
    this.searchWords = new SearchWordStatistics(sql);
  }

  /** One page of a mailbox view, and the count row that also answers the caller's right on the filter ids. */
  async listPage(userId: string, filter: EmailFilter, page: PageRequest, tx?: Tx): Promise<{ items: EmailRecord[]; count: CountRow; hasNext: boolean }> {
    const shares = filter.search ? await this.searchWords.shares() : undefined;
    const probe = filter.search && shares && !filter.ids && !filter.threadId && !filter.personId ? await this.searchProbe(userId, filter, shares, tx) : undefined;
    const { pageSql, countSql, bind } = mailboxListQuery(userId, filter, page, shares, probe?.how);
    // One after the other: a request holds at most one pool connection at a time (ADR 0121).
    const rows = await this.sql.select<EmailRow>(pageSql, bind, tx);
    const count = probe?.total !== undefined ? { total: probe.total } : await this.sql.one<CountRow>(countSql, bind, tx);
    const cut = cutPage(rows, page);
    return { items: cut.rows.map(toEmailRecord), count: count!, hasNext: cut.hasNext };
  }

  /**
   * Whether the selective words of a search find few emails of the caller's through the index (a page
   * is then sorted from them, handed over by id: one lookup in the index per request) or many (the
   * documents are read in page order): one bounded count first (docs/adr/0151). Where that count is
   * the list's total as well (searchCountIsTotal), it counts up to the total's bound and no second
   * count is made.
   */
  private async searchProbe(userId: string, filter: EmailFilter, shares: WordShares, tx?: Tx): Promise<SearchProbe> {
    const search = filter.search!;
    const isTotal = searchCountIsTotal(filter, shares);
    const probe = hitProbeSql(search, shares, isTotal ? COUNT_BOUND : HIT_BOUND);
    if (!probe) return { how: 'walk' };
    const row = (await this.sql.one<{ n: number; ids: string[] | null }>(probe.sql, { ...probe.bind, userId }, tx))!;
    return { how: row.ids ? { hitIds: row.ids } : 'walk', ...(isTotal ? { total: row.n } : {}) };
  }

  /**
   * An email of an account the caller is a member of, with its full body and contact ids, and whether
   * their share lets them read it (`allowed`); undefined when the account is not shared with them.
   */
  async findRecord(userId: string, emailId: string, tx?: Tx): Promise<{ email: EmailRecord; allowed: boolean } | undefined> {
    const row = await this.sql.one<EmailRow & { allowed: boolean }>(
      `SELECT ${FULL_COLUMNS}, ${rightCondition('readEmails')} AS allowed
         FROM emails e JOIN email_account_members m ON m.email_account_id = e.email_account_id AND m.user_id = $userId
        WHERE e.id = $emailId`,
      { emailId, userId },
      tx,
    );
    return row && { email: toEmailRecord(row), allowed: row.allowed };
  }

  /** The attachments of these emails, in their order within each email. */
  async attachmentsOf(emailIds: readonly string[], tx?: Tx): Promise<Map<string, AttachmentRecord[]>> {
    const byEmail = new Map<string, AttachmentRecord[]>();
    if (emailIds.length === 0) return byEmail;
    const rows = await this.sql.select<AttachmentRow>(
      `SELECT id, email_id, blob_id, name, type, size, is_inline, cid FROM email_attachments
        WHERE email_id = ANY($emailIds::uuid[]) ORDER BY email_id, position`,
      { emailIds: [...emailIds] },
      tx,
    );
    for (const row of rows) byEmail.set(row.email_id, [...(byEmail.get(row.email_id) ?? []), toAttachmentRecord(row)]);
    return byEmail;
  }

  /** One page of a conversation within an email account, oldest first, with full bodies. */
  async threadPage(accountId: string, threadId: string, page: PageRequest, tx?: Tx): Promise<Page<EmailRecord>> {
    const bind = { accountId, threadId, limit: page.limit, offset: offsetOf(page) };
    const where = 'e.email_account_id = $accountId AND e.thread_id = $threadId';
    // One after the other: a request holds at most one pool connection at a time (ADR 0121).
    const rows = await this.sql.select<EmailRow>(`SELECT ${FULL_COLUMNS} FROM emails e WHERE ${where} ORDER BY e.date ASC NULLS LAST, e.id LIMIT $limit OFFSET $offset`, bind, tx);
    const count = await this.sql.one<{ total: number }>(`SELECT count(*)::int AS total FROM emails e WHERE ${where}`, bind, tx);
    return { items: rows.map(toEmailRecord), total: count!.total };
  }

  /**
   * is_read and read_pending in one UPDATE (the user's truth even if the server is down), only where
   * the caller may change the read state. Setting the value it already has changes nothing. Answers
   * how many rows changed.
   */
  setRead(userId: string, emailId: string, isRead: boolean, tx?: Tx): Promise<number> {
    return this.sql.execute(
      `UPDATE emails SET is_read = $isRead, read_pending = true, updated_at = now()
        WHERE id = $emailId AND email_account_id IN (${accountsWith('markRead')}) AND is_read <> $isRead`,
      { emailId, userId, isRead },
      tx,
    );
  }

  /**
   * Marks every unread email the contact took part in as read (pending the write-back), where the
   * caller may change the read state; answers the changed ones.
   */
  async markContactRead(userId: string, contactId: string, tx?: Tx): Promise<{ id: string; emailAccountId: string }[]> {
    // `NOT l.is_read` lets the partial index on the links find the unread ones without reading the rest.
    // The rows are locked in id order first: two contacts that share emails, marked read at once, would
    // otherwise lock the shared rows in opposite orders and deadlock.
    const rows = await this.sql.select<{ id: string; email_account_id: string }>(
      `WITH target AS (
         SELECT e.id FROM email_contacts l JOIN emails e ON e.id = l.email_id
          WHERE l.contact_id = $contactId AND NOT l.is_read AND NOT e.is_read
            AND e.email_account_id IN (${accountsWith('markRead')})
          ORDER BY e.id
            FOR UPDATE OF e)
       UPDATE emails e SET is_read = true, read_pending = true, updated_at = now()
         FROM target t WHERE e.id = t.id
        RETURNING e.id, e.email_account_id`,
      { contactId, userId },
      tx,
    );
    return rows.map((row) => ({ id: row.id, emailAccountId: row.email_account_id }));
  }

  /**
   * The caller's own read mark of the email (email_reads, migration 0033): what the team inbox counts
   * as read for them, beside the mailbox's flag. Only where they may read it.
   */
  async setPersonalRead(userId: string, emailId: string, isRead: boolean, tx?: Tx): Promise<void> {
    await this.sql.execute(
      isRead
        ? `INSERT INTO email_reads (user_id, email_id)
           SELECT $userId, e.id FROM emails e WHERE e.id = $emailId AND e.email_account_id IN (${accountsWith('readEmails')})
           ON CONFLICT DO NOTHING`
        : 'DELETE FROM email_reads WHERE user_id = $userId AND email_id = $emailId',
      { userId, emailId },
      tx,
    );
  }

  /** The account's next `limit` pending rows after the id `after`, in id order (only `ids` if given). */
  pendingReadStates(accountId: string, after: string, limit: number, ids?: readonly string[], tx?: Tx): Promise<PendingReadState[]> {
    return this.sql.select<PendingReadState>(
      `SELECT id, jmap_id, is_read FROM emails
        WHERE email_account_id = $accountId AND read_pending AND id > $after ${ids ? 'AND id = ANY($ids::uuid[])' : ''}
        ORDER BY id LIMIT $limit`,
      { accountId, after, limit, ...(ids ? { ids } : {}) },
      tx,
    );
  }

  /** How many of the account's pending rows come after the id `after` (only `ids` if given). */
  async countPendingReadStates(accountId: string, after: string, ids?: readonly string[], tx?: Tx): Promise<number> {
    const row = await this.sql.one<{ n: number }>(
      `SELECT count(*)::int AS n FROM emails
        WHERE email_account_id = $accountId AND read_pending AND id > $after ${ids ? 'AND id = ANY($ids::uuid[])' : ''}`,
      { accountId, after, ...(ids ? { ids } : {}) },
      tx,
    );
    return row!.n;
  }

  /** Clears only rows still holding the value that was sent: a change made meanwhile stays pending. */
  async clearReadPending(accountId: string, sent: readonly PendingReadState[], tx?: Tx): Promise<void> {
    if (sent.length === 0) return;
    await this.sql.execute(
      `UPDATE emails e SET read_pending = false
         FROM unnest($ids::uuid[], $values::boolean[]) AS sent(id, is_read)
        WHERE e.id = sent.id AND e.email_account_id = $accountId AND e.read_pending AND e.is_read = sent.is_read`,
      { accountId, ids: sent.map((r) => r.id), values: sent.map((r) => r.is_read) },
      tx,
    );
  }
}
