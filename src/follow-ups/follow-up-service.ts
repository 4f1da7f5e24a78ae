import type { Transactions } from '../db/transactions.js';
import { isForeignKeyViolation } from '../db/db-errors.js';
import { NotFoundError } from '../errors/app-errors.js';
import type { EmailAccountAccess } from '../email-accounts/account-access.js';
import { CONTACT_NOT_FOUND } from '../contacts/contact-records.js';
import type { Page, PageRequest } from '../shared/pagination.js';
import type { FollowUpFilter, FollowUpRecord, FollowUpRepository } from './follow-up-repository.js';

export const FOLLOW_UP_NOT_FOUND = 'Pripomienka pre tento kontakt neexistuje';

export interface FollowUpInput {
  dueAt: Date;
  note?: string | null;
}

/**
 * Follow-up reminders (ADR 0119): one per contact and user, private to that user. A contact the
 * caller may not see (another user's, an account not shared with them, an unknown id) is a 404 like
 * everywhere else; any membership of the contact's account suffices (a viewer may remind themselves).
 * A follow-up of a contact that became invisible (a share removed) is kept but neither listed nor
 * notified; it shows again if the share comes back.
 */
export class FollowUpService {
  constructor(
    private readonly deps: {
      followUps: FollowUpRepository;
      accounts: EmailAccountAccess;
      transactions: Transactions;
    },
  ) {}

  /** The caller's follow-ups; of one contact only with `contactId` (a contact they may not see: 404, as everywhere). */
  async list(userId: string, filter: FollowUpFilter, page: PageRequest): Promise<Page<FollowUpRecord>> {
    if (filter.contactId !== undefined) await this.deps.accounts.requireContact(userId, filter.contactId, 'view');
    return this.deps.followUps.list(userId, filter, page);
  }

  /** Sets or replaces the caller's follow-up of the contact; `created` when there was none. */
  async set(userId: string, contactId: string, input: FollowUpInput): Promise<{ followUp: FollowUpRecord; created: boolean }> {
    const { followUps, accounts, transactions } = this.deps;
    try {
      return await transactions.run(async (tx) => {
        await accounts.requireContact(userId, contactId, 'view', tx);
        const created = await followUps.upsert(userId, contactId, input.dueAt, input.note ?? null, tx);
        const followUp = await followUps.find(userId, contactId, tx);
        if (!followUp) throw new NotFoundError(CONTACT_NOT_FOUND);
        return { followUp, created };
      });
    } catch (err) {
      // The contact was deleted between the check and the insert.
      if (isForeignKeyViolation(err)) throw new NotFoundError(CONTACT_NOT_FOUND);
      throw err;
    }
  }

  /** Deletes the caller's follow-up of the contact: 404 for an invisible contact, or when there is none. */
  async remove(userId: string, contactId: string): Promise<void> {
    await this.deps.accounts.requireContact(userId, contactId, 'view');
    const removed = await this.deps.followUps.remove(userId, contactId);
    if (removed === 0) throw new NotFoundError(FOLLOW_UP_NOT_FOUND);
  }
}
