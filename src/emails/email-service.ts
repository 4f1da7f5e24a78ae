import { QueryTypes, type Sequelize } from 'sequelize';
import type { PageRequest } from '../shared/pagination.js';
import type { ContactService } from '../contacts/contact-service.js';
import { totalOrNotFound, type CountRow } from '../email-accounts/account-access.js';
import { NotFoundError } from '../errors/app-errors.js';
import type { Logger } from '../logging/logger.js';
import { EmailAccount } from '../models/index.js';
import { emailListQuery, type EmailFilter } from './email-query.js';
import { FULL_COLUMNS, toEmailRecord, type EmailRecord, type EmailRow } from './email-records.js';
import type { PushResult, ReadStatePusher } from './read-state-pusher.js';

export type { EmailFilter } from './email-query.js';

export interface MarkReadResult {
  /** Emails whose read state changed here. */
  updated: number;
  /** Of those, how many the mail server has confirmed; the rest stay pending for the sync to retry. */
  pushed: number;
  pending: number;
}

const EMAIL_NOT_FOUND = 'Email neexistuje';

/**
 * A user's emails: lists, full reads, threads and the read state. Every query carries the caller's
 * user id, so another user's email or contact is "not found" (admins included).
 */
export class EmailService {
  constructor(
    private readonly sequelize: Sequelize,
    private readonly contacts: ContactService,
    private readonly pusher: ReadStatePusher,
    private readonly logger: Logger,
    /** How long a request waits for the mail server before answering with the change still pending. */
    private readonly pushWaitMs = 3000,
  ) {}

  async list(userId: string, filter: EmailFilter, page: PageRequest): Promise<{ items: EmailRecord[]; total: number }> {
    const { pageSql, countSql, bind } = emailListQuery(userId, filter, page);
    const [rows, [count]] = await Promise.all([this.select<EmailRow>(pageSql, bind), this.select<CountRow>(countSql, bind)]);
    return { total: totalOrNotFound(count!), items: rows.map(toEmailRecord) };
  }

  async get(userId: string, emailId: string): Promise<EmailRecord> {
    const [row] = await this.select<EmailRow>(`SELECT ${FULL_COLUMNS} FROM emails e WHERE e.id = $emailId AND e.user_id = $userId`, { emailId, userId });
    if (!row) throw new NotFoundError(EMAIL_NOT_FOUND);
    return toEmailRecord(row);
  }

  /** The conversation of an email within its email account, oldest first, with full bodies. */
  async thread(userId: string, emailId: string, page: PageRequest): Promise<{ items: EmailRecord[]; total: number }> {
    const email = await this.get(userId, emailId);
    if (!email.threadId) return { items: page.page === 1 ? [email] : [], total: 1 };
    const bind = { userId, accountId: email.emailAccountId, threadId: email.threadId, limit: page.limit, offset: (page.page - 1) * page.limit };
    const where = 'e.user_id = $userId AND e.email_account_id = $accountId AND e.thread_id = $threadId';
    const [rows, [count]] = await Promise.all([
      this.select<EmailRow>(`SELECT ${FULL_COLUMNS} FROM emails e WHERE ${where} ORDER BY e.date ASC NULLS LAST, e.id LIMIT $limit OFFSET $offset`, bind),
      this.select<{ total: number }>(`SELECT count(*)::int AS total FROM emails e WHERE ${where}`, bind),
    ]);
    return { items: rows.map(toEmailRecord), total: count!.total };
  }

  /**
   * Local first (is_read and read_pending in one UPDATE: the user's truth even if the server is down),
   * then the write-back. Setting the value it already has changes nothing, but an earlier change
   * still waiting for the server is pushed again.
   */
  async setRead(userId: string, emailId: string, isRead: boolean): Promise<EmailRecord> {
    await this.sequelize.query(
      `UPDATE emails SET is_read = $isRead, read_pending = true, updated_at = now()
        WHERE id = $emailId AND user_id = $userId AND is_read <> $isRead`,
      { bind: { emailId, userId, isRead } },
    );
    const email = await this.get(userId, emailId);
    if (email.readPending) await this.pushAndWait(userId, new Map([[email.emailAccountId, [email.id]]]));
    return this.get(userId, emailId);
  }

  /** Marks every email the contact took part in as read, locally and then on the server. */
  async markContactRead(userId: string, contactId: string): Promise<MarkReadResult> {
    await this.contacts.requireOwned(userId, contactId);
    // `NOT l.is_read` lets the partial index on the links find the unread ones without reading the rest.
    // The rows are locked in id order first: two contacts that share emails, marked read at once, would
    // otherwise lock the shared rows in opposite orders and deadlock.
    const changed = await this.select<{ id: string; email_account_id: string }>(
      `WITH target AS (
         SELECT e.id FROM email_contacts l JOIN emails e ON e.id = l.email_id
          WHERE l.contact_id = $contactId AND NOT l.is_read AND e.user_id = $userId AND NOT e.is_read
          ORDER BY e.id
            FOR UPDATE OF e)
       UPDATE emails e SET is_read = true, read_pending = true, updated_at = now()
         FROM target t WHERE e.id = t.id
        RETURNING e.id, e.email_account_id`,
      { contactId, userId },
    );
    const byAccount = new Map<string, string[]>();
    for (const row of changed) byAccount.set(row.email_account_id, [...(byAccount.get(row.email_account_id) ?? []), row.id]);
    const pushed = await this.pushAndWait(userId, byAccount);
    return { updated: changed.length, pushed, pending: changed.length - pushed };
  }

  /**
   * Pushes the given emails per account, waiting at most pushWaitMs: a hanging server must not hold
   * the user's click for the whole JMAP timeout. A push still running then finishes in the background.
   * Returns how many the server confirmed within the wait.
   */
  private async pushAndWait(userId: string, byAccount: Map<string, string[]>): Promise<number> {
    if (byAccount.size === 0) return 0;
    const accounts = await EmailAccount.findAll({ where: { id: [...byAccount.keys()], userId } });
    const pushes = accounts.map((account) =>
      this.pusher.push(account, { emailIds: byAccount.get(account.id)! }).catch((err: unknown) => {
        this.logger.error('read state write-back crashed', { err, emailAccountId: account.id });
        return { pushed: 0, failed: byAccount.get(account.id)!.length } satisfies PushResult;
      }),
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.pushWaitMs);
    });
    try {
      const results = await Promise.race([Promise.all(pushes), timeout]);
      return results ? results.reduce((sum, r) => sum + r.pushed, 0) : 0;
    } finally {
      clearTimeout(timer);
    }
  }

  private select<T extends object>(sql: string, bind: Record<string, unknown>): Promise<T[]> {
    return this.sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT });
  }
}
