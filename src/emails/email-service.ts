import { boundedTotal, type Page, type PageRequest } from '../shared/pagination.js';
import { decide, totalOrDenied, type EmailAccountAccess } from '../email-accounts/account-access.js';
import { NotFoundError } from '../errors/app-errors.js';
import type { Logger } from '../logging/logger.js';
import { PERSON_NOT_FOUND } from '../people/person-visibility.js';
import type { EmailFilter } from './email-query.js';
import type { EmailRecord } from './email-records.js';
import type { EmailRepository } from './email-repository.js';
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
const HOUR_MS = 3_600_000;

/**
 * The emails of the accounts a user may read (own, and shared with can_read): lists, full reads,
 * threads and the read state (owner and editor). An email of an account not shared with the caller is
 * "not found" (admins included); a member without the right gets a 403 (EmailAccountAccess).
 */
export class EmailService {
  constructor(
    private readonly deps: {
      emails: EmailRepository;
      accounts: EmailAccountAccess;
      pusher: ReadStatePusher;
      logger: Logger;
      /** How long a request waits for the mail server before answering with the change still pending (default 3 s). */
      pushWaitMs?: number;
    },
  ) {}

  async list(userId: string, filter: EmailFilter, page: PageRequest): Promise<Page<EmailRecord>> {
    const { items, count, hasNext } = await this.deps.emails.listPage(userId, filter, page);
    const total = totalOrDenied(count, 'readEmails');
    // A person the caller sees no address of is a 404, as a contact filter is (person-visibility.ts).
    if ('person_access' in count && count.person_access !== true) throw new NotFoundError(PERSON_NOT_FOUND);
    return { ...boundedTotal(total), items, hasNext };
  }

  /**
   * Threads awaiting a reply, oldest waiting first: GET /api/emails?awaitingReply=true&sort=oldest with
   * the wait as an upper bound of the date (docs/adr/0118-awaiting-reply.md).
   */
  awaitingReply(userId: string, options: { emailAccountId?: string; olderThanHours?: number }, page: PageRequest): Promise<Page<EmailRecord>> {
    const before = options.olderThanHours === undefined ? undefined : new Date(Date.now() - options.olderThanHours * HOUR_MS + 1);
    return this.list(userId, { emailAccountId: options.emailAccountId, awaitingReply: true, sort: 'oldest', before }, page);
  }

  async get(userId: string, emailId: string): Promise<EmailRecord> {
    const found = await this.deps.emails.findRecord(userId, emailId);
    decide(found?.allowed, 'readEmails', EMAIL_NOT_FOUND);
    const email = found!.email;
    email.attachments = (await this.deps.emails.attachmentsOf([email.id])).get(email.id) ?? [];
    return email;
  }

  /** The conversation of an email within its email account, oldest first, with full bodies. */
  async thread(userId: string, emailId: string, page: PageRequest): Promise<Page<EmailRecord>> {
    const email = await this.get(userId, emailId);
    if (!email.threadId) return { items: page.page === 1 ? [email] : [], total: 1 };
    const result = await this.deps.emails.threadPage(email.emailAccountId, email.threadId, page);
    const attachments = await this.deps.emails.attachmentsOf(result.items.map((e) => e.id));
    for (const item of result.items) item.attachments = attachments.get(item.id) ?? [];
    return result;
  }

  /**
   * Local first (is_read and read_pending in one UPDATE: the user's truth even if the server is down),
   * then the write-back. Setting the value it already has changes nothing, but an earlier change
   * still waiting for the server is pushed again.
   */
  async setRead(userId: string, emailId: string, isRead: boolean): Promise<EmailRecord> {
    await this.deps.accounts.requireEmail(userId, emailId, 'markRead', EMAIL_NOT_FOUND);
    // The right is checked again inside the UPDATE: a share removed meanwhile changes nothing.
    await this.deps.emails.setRead(userId, emailId, isRead);
    // The caller's own read state too (the team inbox's unread counts are per member).
    await this.deps.emails.setPersonalRead(userId, emailId, isRead);
    const email = await this.get(userId, emailId);
    if (email.readPending) await this.pushAndWait(userId, new Map([[email.emailAccountId, [email.id]]]));
    return this.get(userId, emailId);
  }

  /** Marks every email the contact took part in as read, locally and then on the server. */
  async markContactRead(userId: string, contactId: string): Promise<MarkReadResult> {
    await this.deps.accounts.requireContact(userId, contactId, 'markRead');
    const changed = await this.deps.emails.markContactRead(userId, contactId);
    const byAccount = new Map<string, string[]>();
    for (const row of changed) byAccount.set(row.emailAccountId, [...(byAccount.get(row.emailAccountId) ?? []), row.id]);
    const pushed = await this.pushAndWait(userId, byAccount);
    return { updated: changed.length, pushed, pending: changed.length - pushed };
  }

  /**
   * Pushes the given emails per account, waiting at most pushWaitMs: a hanging server must not hold
   * the user's click for the whole JMAP timeout. A push still running then finishes in the background.
   * Returns how many the server confirmed within the wait.
   */
  async pushAndWait(userId: string, byAccount: Map<string, string[]>): Promise<number> {
    if (byAccount.size === 0) return 0;
    const { accounts, pusher, logger, pushWaitMs = 3000 } = this.deps;
    const permitted = await accounts.accountsWith(userId, [...byAccount.keys()], 'markRead');
    const pushes = permitted.map((account) =>
      pusher.push(account, { emailIds: byAccount.get(account.id)! }).catch((err: unknown) => {
        logger.error('read state write-back crashed', { err, emailAccountId: account.id });
        return { pushed: 0, failed: byAccount.get(account.id)!.length } satisfies PushResult;
      }),
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), pushWaitMs);
    });
    try {
      const results = await Promise.race([Promise.all(pushes), timeout]);
      return results ? results.reduce((sum, r) => sum + r.pushed, 0) : 0;
    } finally {
      clearTimeout(timer);
    }
  }
}
