import { companyIdOfDomain, ensureCompanies } from '../companies/company-assignment.js';
import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';
import type { CountRow } from '../email-accounts/account-access.js';
import { lockAccountOwner } from '../email-accounts/account-owner-lock.js';
import { accountsWith } from '../email-accounts/account-rights.js';
import { Contact } from '../models/index.js';
import { cutPage, type PageRequest } from '../shared/pagination.js';
import { linkEarlierEmails, recomputeLastEmailAt } from './contact-mail-links.js';
import { COMPANY_OF, CONTACT_COLUMNS, UNREAD_COUNT_OF, contactListQuery, type ContactFilter } from './contact-query.js';
import { toContactRecord, type ContactRecord, type ContactRow } from './contact-records.js';

/** The list's count row; company_access only with a company filter (null: not a company the caller sees). */
export type ContactCountRow = CountRow & { company_access?: boolean | null };

/** The columns of a contact added by hand; the id, timestamps and defaults come from the database. */
export interface NewContactRow {
  userId: string;
  emailAccountId: string;
  email: string;
  name: string | null;
  notes: string | null;
  lastEmailAt: Date | null;
  companyId: string | null;
}

export type ContactEdits = Partial<Pick<Contact, 'name' | 'notes'>>;

/** Namespace of the advisory locks of contact deletes (the key within it is the email account). */
const CONTACT_DELETE_LOCK = 0x636f6e74;

/**
 * All data access of the contacts area: contacts, their suppressions and links to emails. Every
 * lookup for a caller is scoped by the accounts they may use (account-rights.ts), so a contact of an
 * account not shared with them is simply not found.
 */
export class ContactRepository {
  constructor(private readonly sql: Sql) {}

  /** One page of the contacts the caller may see, and the count row that also answers their right on the filter ids. */
  async listPage(userId: string, filter: ContactFilter, page: PageRequest, tx?: Tx): Promise<{ items: ContactRecord[]; count: ContactCountRow; hasNext: boolean }> {
    const { pageSql, countSql, bind } = contactListQuery(userId, filter, page);
    // One after the other: a request holds at most one pool connection at a time (ADR 0121).
    const rows = await this.sql.select<ContactRow>(pageSql, bind, tx);
    const count = await this.sql.one<ContactCountRow>(countSql, bind, tx);
    const cut = cutPage(rows, page);
    return { items: cut.rows.map(toContactRecord), count: count!, hasNext: cut.hasNext };
  }

  /** A contact of an account the caller may see, with its unread and email counts, or undefined. */
  async findRecord(userId: string, contactId: string, tx?: Tx): Promise<ContactRecord | undefined> {
    const row = await this.sql.one<ContactRow>(
      `SELECT ${CONTACT_COLUMNS}, ${UNREAD_COUNT_OF('c')} AS unread_count, ${COMPANY_OF('c')} AS company,
              (SELECT count(*) FROM email_contacts a WHERE a.contact_id = c.id)::int AS email_count
         FROM contacts c WHERE c.id = $contactId AND c.email_account_id IN (${accountsWith('view')})`,
      { contactId, userId },
      tx,
    );
    return row && toContactRecord(row);
  }

  /** The account's contact locked FOR UPDATE until the transaction ends, or null. */
  findForUpdate(accountId: string, contactId: string, tx: Tx): Promise<Contact | null> {
    return Contact.findOne({ where: { id: contactId, emailAccountId: accountId }, lock: tx.LOCK.UPDATE, transaction: tx });
  }

  /** Whether the account already has a contact of this (lower-cased) address. */
  async existsByAddress(accountId: string, email: string, tx?: Tx): Promise<boolean> {
    const existing = await Contact.findOne({ where: { emailAccountId: accountId, email }, attributes: ['id'], transaction: tx });
    return existing !== null;
  }

  create(values: NewContactRow, tx?: Tx): Promise<Contact> {
    return Contact.create(values, { transaction: tx });
  }

  /** The company a new contact of this address is filed under, as the sync files it (company-assignment.ts); null for a free-mail domain. */
  async companyIdFor(email: string, tx?: Tx): Promise<string | null> {
    const domain = (await ensureCompanies(this.sql, [email], tx)).get(email);
    if (!domain) return null;
    const row = await this.sql.one<{ id: string | null }>(`SELECT ${companyIdOfDomain('$domain')} AS id`, { domain }, tx);
    return row?.id ?? null;
  }

  /**
   * Changes a contact the caller may edit (the right is checked again here, in the same statement, so
   * a share removed a moment ago cannot let the write through); answers how many rows changed.
   */
  async update(userId: string, contactId: string, values: ContactEdits, tx?: Tx): Promise<number> {
    const sets = ['updated_at = now()'];
    if (values.name !== undefined) sets.push('name = $name');
    if (values.notes !== undefined) sets.push('notes = $notes');
    return this.sql.execute(
      `UPDATE contacts SET ${sets.join(', ')} WHERE id = $contactId AND email_account_id IN (${accountsWith('editContacts')})`,
      { userId, contactId, name: values.name ?? null, notes: values.notes ?? null },
      tx,
    );
  }

  /** Emails go with it by FK cascade. */
  async destroy(contact: Contact, tx?: Tx): Promise<void> {
    await contact.destroy({ transaction: tx });
  }

  /** Lets the sync create a contact of this address again. */
  async liftSuppression(accountId: string, email: string, tx?: Tx): Promise<void> {
    await this.sql.execute('DELETE FROM contact_suppressions WHERE email_account_id = $accountId AND email = $email', { accountId, email }, tx);
  }

  /** Remembers a deleted contact's address so the sync does not bring it back. */
  async suppress(accountId: string, email: string, tx?: Tx): Promise<void> {
    await this.sql.execute('INSERT INTO contact_suppressions (email_account_id, email) VALUES ($accountId, $email) ON CONFLICT DO NOTHING', { accountId, email }, tx);
  }

  /**
   * What a delete takes with it: the emails whose main correspondent the contact is, and the other
   * contacts linked to those emails (they lose emails, so their last_email_at must be recomputed).
   */
  async deletionStats(contactId: string, tx?: Tx): Promise<{ emails: number; others: string[] }> {
    const stats = await this.sql.one<{ emails: number; others: string[] }>(
      `SELECT (SELECT count(*) FROM emails WHERE contact_id = $contactId)::int AS emails,
              coalesce((SELECT array_agg(DISTINCT l.contact_id::text) FROM emails e JOIN email_contacts l ON l.email_id = e.id
                         WHERE e.contact_id = $contactId AND l.contact_id <> $contactId), '{}'::text[]) AS others`,
      { contactId },
      tx,
    );
    return stats!;
  }

  /** last_email_at of the given contacts from the links they still have. */
  recomputeLastEmailAt(contactIds: readonly string[], tx?: Tx): Promise<void> {
    return recomputeLastEmailAt(this.sql, contactIds, tx);
  }

  /** The account's owner, locked against a hand-over (account-owner-lock.ts). */
  lockAccountOwner(accountId: string, tx: Tx): Promise<string | undefined> {
    return lockAccountOwner(this.sql, accountId, tx);
  }

  /**
   * Deletes of contacts that share emails cascade over the same emails and links in different orders
   * and deadlocked each other. They now take the account's turn first: an advisory lock (deletes of one
   * account one after the other) and the account's sync state row, which a sync batch holds until it
   * commits (so a delete also waits for a batch in progress instead of crossing it). Both are held
   * until the transaction ends.
   */

  async serialiseAccountChanges(accountId: string, tx: Tx): Promise<void> {
    await this.sql.execute('SELECT pg_advisory_xact_lock($namespace, hashtext($accountId))', { namespace: CONTACT_DELETE_LOCK, accountId }, tx);
    await this.sql.execute('SELECT 1 FROM mail_sync_states WHERE email_account_id = $accountId FOR UPDATE', { accountId }, tx);
  }

  /**
   * A contact added by hand shows the mail it already took part in, the same way the sync links
   * the contacts it creates (contact-mail-links.ts).
   */
  linkEarlierEmails(contactId: string, tx?: Tx): Promise<void> {
    return linkEarlierEmails(this.sql, [contactId], tx);
  }
}
