/**
 * EMAIL_RETENTION_DAYS, the pruning side (the sync side is suppression-filter.ts): emails dated before
 * the cut-off are deleted from the CRM's copy, never from the mail server. Account by account along
 * (email_account_id, date) and in bounded batches, each its own short transaction, so switching the
 * setting on for a large installation never holds one huge transaction or a lock on a whole mailbox.
 * Contacts that lost emails get their last_email_at recomputed; those left with no email at all keep
 * their notes unless EMAIL_RETENTION_DELETE_EMPTY_CONTACTS asks for them to go.
 */
import type { Transactions } from '../db/transactions.js';
import type { EmailRetentionRepository } from './email-retention-repository.js';

/** Emails deleted per statement (and transaction). */
const BATCH = 2000;
const DAY_MS = 24 * 3600 * 1000;

export interface EmailRetentionSettings {
  /** Undefined: emails are kept forever. */
  days?: number;
  deleteEmptyContacts: boolean;
}

export interface EmailRetentionResult {
  emails: number;
  /** Contacts deleted because the retention left them without any email. */
  contacts: number;
}

export class EmailRetention {
  constructor(
    private readonly repository: EmailRetentionRepository,
    private readonly transactions: Transactions,
    readonly settings: EmailRetentionSettings,
  ) {}

  /** `accountIds` narrows the pass (tests sharing one database); by default every account. */
  async prune(now = new Date(), scope: { accountIds?: string[] } = {}): Promise<EmailRetentionResult> {
    const result: EmailRetentionResult = { emails: 0, contacts: 0 };
    if (this.settings.days === undefined) return result;
    const before = new Date(now.getTime() - this.settings.days * DAY_MS);
    const { repository } = this;
    for (const accountId of await repository.accountIds(scope.accountIds)) {
      for (;;) {
        const batch = await this.transactions.run(async (tx) => {
          const { emails, contactIds } = await repository.deleteOlder(accountId, before, BATCH, tx);
          if (contactIds.length === 0) return { emails, contacts: 0 };
          await repository.recomputeLastEmailAt(contactIds, tx);
          return { emails, contacts: this.settings.deleteEmptyContacts ? await repository.deleteIfEmpty(contactIds, tx) : 0 };
        });
        result.emails += batch.emails;
        result.contacts += batch.contacts;
        if (batch.emails < BATCH) break;
      }
    }
    return result;
  }
}
