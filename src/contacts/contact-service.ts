import type { Transactions } from '../db/transactions.js';
import { isForeignKeyViolation, isUniqueViolation } from '../db/db-errors.js';
import { boundedTotal, type Page, type PageRequest } from '../shared/pagination.js';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import { ConflictError, NotFoundError } from '../errors/app-errors.js';
import { ACCOUNT_NOT_FOUND, totalOrDenied, type EmailAccountAccess } from '../email-accounts/account-access.js';
import { COMPANY_NOT_FOUND } from '../companies/company-visibility.js';
import type { ContactFilter } from './contact-query.js';
import { CONTACT_NOT_FOUND, type ContactRecord } from './contact-records.js';
import type { ContactEdits, ContactRepository } from './contact-repository.js';

export interface NewContact {
  emailAccountId: string;
  email: string;
  name?: string | null;
  notes?: string | null;
}

export interface ContactChanges {
  name?: string | null;
  notes?: string | null;
}

export type { ContactFilter } from './contact-query.js';

export { CONTACT_NOT_FOUND } from './contact-records.js';
const DUPLICATE = 'Kontakt už existuje';

/**
 * The contacts of the email accounts a user may see: their own and those shared with them
 * (docs/contract.md §4.3). Viewing needs any share, changes the editor or owner role
 * (EmailAccountAccess). A contact of an account not shared with the caller is simply not found (404),
 * for admins too; a viewer's change is a 403.
 */
export class ContactService {
  constructor(
    private readonly deps: {
      contacts: ContactRepository;
      accounts: EmailAccountAccess;
      transactions: Transactions;
      audit: AuditService;
    },
  ) {}

  async list(userId: string, filter: ContactFilter, page: PageRequest): Promise<Page<ContactRecord>> {
    const { items, count, hasNext } = await this.deps.contacts.listPage(userId, filter, page);
    const total = totalOrDenied(count, 'view');
    // A company the caller does not see is a 404, as an account filter is (company-visibility.ts).
    if ('company_access' in count && !count.company_access) throw new NotFoundError(COMPANY_NOT_FOUND);
    return { ...boundedTotal(total), items, hasNext };
  }

  async get(userId: string, contactId: string): Promise<ContactRecord> {
    const contact = await this.deps.contacts.findRecord(userId, contactId);
    if (!contact) throw new NotFoundError(CONTACT_NOT_FOUND);
    return contact;
  }

  /** A contact added by hand; it also lifts an earlier deletion's suppression, so the sync fills it again. */
  async create(userId: string, input: NewContact, meta: RequestMeta): Promise<ContactRecord> {
    const { contacts, accounts, transactions, audit } = this.deps;
    const { emailAccountId: accountId } = await accounts.requireAccount(userId, input.emailAccountId, 'editContacts');
    const email = input.email.trim().toLowerCase();
    let id: string;
    try {
      id = await transactions.run(async (tx) => {
        if (await contacts.existsByAddress(accountId, email, tx)) throw new ConflictError(DUPLICATE);
        await contacts.liftSuppression(accountId, email, tx);
        // The row carries the account's owner (as the sync's rows do), whoever of its editors adds it;
        // read under a lock, so a hand-over in between cannot leave the row under the former owner.
        const ownerId = await contacts.lockAccountOwner(accountId, tx);
        if (!ownerId) throw new NotFoundError(ACCOUNT_NOT_FOUND);
        const companyId = await contacts.companyIdFor(email, tx);
        const contact = await contacts.create(
          { userId: ownerId, emailAccountId: accountId, email, name: input.name ?? null, notes: input.notes ?? null, lastEmailAt: null, companyId },
          tx,
        );
        await contacts.linkEarlierEmails(contact.id, tx);
        await audit.record({ action: AuditActions.contactCreated, userId, details: { contactId: contact.id, emailAccountId: accountId, email } }, meta, tx);
        return contact.id;
      });
    } catch (err) {
      // Two requests racing past the check: the unique constraint decides, the loser gets the same 409.
      if (isUniqueViolation(err)) throw new ConflictError(DUPLICATE);
      // The email account was removed between the check and the insert.
      if (isForeignKeyViolation(err)) throw new NotFoundError(ACCOUNT_NOT_FOUND);
      throw err;
    }
    return this.get(userId, id);
  }

  async update(userId: string, contactId: string, changes: ContactChanges): Promise<ContactRecord> {
    const values: ContactEdits = {};
    if (changes.name !== undefined) values.name = changes.name;
    if (changes.notes !== undefined) values.notes = changes.notes;
    await this.deps.accounts.requireContact(userId, contactId, 'editContacts');
    // Checked again in the UPDATE itself: a share removed or an account deleted meanwhile changes nothing.
    const changed = await this.deps.contacts.update(userId, contactId, values);
    if (changed === 0) throw new NotFoundError(CONTACT_NOT_FOUND);
    return this.get(userId, contactId);
  }

  /**
   * Deletes the contact with its emails and remembers the address so the sync does not bring it back.
   * Emails whose main correspondent it is go with it (FK cascade), also from the lists of the other
   * participants. Emails where it was only a participant stay with their main correspondent; only
   * the link goes. Contacts that lose emails get their last_email_at recomputed.
   */
  async delete(userId: string, contactId: string, meta: RequestMeta): Promise<{ deletedEmails: number }> {
    const { contacts, accounts, transactions, audit } = this.deps;
    return transactions.run(async (tx) => {
      const { emailAccountId: accountId } = await accounts.requireContact(userId, contactId, 'editContacts', tx);
      // The account's turn first (see serialiseAccountChanges), then the contact's row.
      await contacts.serialiseAccountChanges(accountId, tx);
      const contact = await contacts.findForUpdate(accountId, contactId, tx);
      if (!contact) throw new NotFoundError(CONTACT_NOT_FOUND);
      const stats = await contacts.deletionStats(contactId, tx);
      await contacts.suppress(contact.emailAccountId, contact.email, tx);
      await contacts.destroy(contact, tx);
      if (stats.others.length > 0) await contacts.recomputeLastEmailAt(stats.others, tx);
      await audit.record(
        {
          action: AuditActions.contactDeleted,
          userId,
          details: { contactId, emailAccountId: contact.emailAccountId, email: contact.email, deletedEmails: stats.emails },
        },
        meta,
        tx,
      );
      return { deletedEmails: stats.emails };
    });
  }
}
