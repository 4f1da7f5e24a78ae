/**
 * A message sent from the CRM goes into the CRM's tables at once, from the mail server's own answer
 * (Email/get of the sent message): mapped and written exactly as the sync would, so the next sync
 * finds the row by its JMAP id and only refreshes it (never a duplicate).
 */
import type { Transactions, Tx } from '../db/transactions.js';
import type { Email } from '../jmap/index.js';
import { normalizeAddress } from './address-rules.js';
import { writeEmails } from './batch-writer.js';
import { mapEmail } from './email-mapper.js';
import type { AccountRef, MailStoreRepository } from './mail-store-repository.js';

export interface SentMailboxes {
  sentId: string;
  /** Trash, Junk, Drafts. */
  excludedIds: string[];
}

export class SentEmailWriter {
  constructor(
    private readonly store: MailStoreRepository,
    private readonly transactions: Transactions,
  ) {}

  /**
   * Writes the sent email (contacts for its recipients included) and runs `alongside` in the same
   * transaction. Answers the email row's id, or null when the CRM files it under nobody (every
   * recipient a deleted contact or a no-reply robot), like the sync would.
   */
  record(
    account: AccountRef & { ownAddresses: string[] },
    email: Email,
    mailboxes: SentMailboxes,
    alongside: (emailId: string | null, tx: Tx) => Promise<void>,
  ): Promise<string | null> {
    const ownAddresses = new Set(account.ownAddresses.map(normalizeAddress).filter((a): a is string => a !== null));
    const mapped = mapEmail(email, { roles: { excluded: new Set(mailboxes.excludedIds), sent: new Set([mailboxes.sentId]) }, ownAddresses, sentThroughCrm: true });
    return this.transactions.run(async (tx) => {
      // The owner as of now, not as of the send's start: the account may have been handed over.
      const owner = await this.store.lockOwner(account.id, tx);
      if (!owner) {
        await alongside(null, tx);
        return null;
      }
      const ref = { id: account.id, userId: owner };
      // Stored while a full sync is under way: marked seen, so that its sweep spares it. Read in this
      // transaction: a full sync that begins after this read queries the server after its own start
      // committed, so it finds this email there (docs/adr/0123).
      const recordSeen = await this.store.fullSyncInProgress(account.id, tx);
      await writeEmails(this.store, ref, { emails: [mapped], recordSeen }, tx);
      const emailId = await this.store.emailIdByJmapId(account.id, mapped.jmapId, tx);
      await alongside(emailId, tx);
      return emailId;
    });
  }
}
