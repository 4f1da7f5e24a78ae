import { ForeignKeyConstraintError, QueryTypes, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import type { PageRequest } from '../shared/pagination.js';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import { ConflictError, NotFoundError } from '../errors/app-errors.js';
import { Contact } from '../models/index.js';
import { ACCOUNT_NOT_FOUND, requireOwnEmailAccount, totalOrNotFound, type CountRow } from '../email-accounts/account-access.js';
import { contactListQuery, type ContactFilter } from './contact-query.js';
import { CONTACT_COLUMNS, CONTACT_NOT_FOUND, UNREAD_COUNT_OF, toContactRecord, type ContactRecord, type ContactRow } from './contact-records.js';

export interface NewContact {
  accountId: string;
  email: string;
  name?: string | null;
  notes?: string | null;
}

export interface ContactChanges {
  name?: string | null;
  notes?: string | null;
}

export type { ContactFilter, ContactSort } from './contact-query.js';

export { CONTACT_NOT_FOUND } from './contact-records.js';
const DUPLICATE = 'Kontakt už existuje';
/** Namespace of the advisory locks of contact deletes (the key within it is the email account). */
const CONTACT_DELETE_LOCK = 0x636f6e74;

/**
 * A user's contacts. Every query carries the caller's user id: another user's contact is simply
 * not found (404), for admins too.
 */
export class ContactService {
  constructor(
    private readonly sequelize: Sequelize,
    private readonly audit: AuditService,
  ) {}

  async list(userId: string, filter: ContactFilter, page: PageRequest): Promise<{ items: ContactRecord[]; total: number }> {
    const { pageSql, countSql, bind } = contactListQuery(userId, filter, page);
    const [rows, [count]] = await Promise.all([this.select<ContactRow>(pageSql, bind), this.select<CountRow>(countSql, bind)]);
    return { total: totalOrNotFound(count!), items: rows.map(toContactRecord) };
  }

  async get(userId: string, contactId: string): Promise<ContactRecord> {
    const [row] = await this.select<ContactRow>(
      `SELECT ${CONTACT_COLUMNS}, ${UNREAD_COUNT_OF('c')} AS unread_count,
              (SELECT count(*) FROM email_contacts a WHERE a.contact_id = c.id)::int AS email_count
         FROM contacts c WHERE c.id = $contactId AND c.user_id = $userId`,
      { contactId, userId },
    );
    if (!row) throw new NotFoundError(CONTACT_NOT_FOUND);
    return toContactRecord(row);
  }

  /** The caller's contact or a 404; for other areas that take a contact id (emails). */
  async requireOwned(userId: string, contactId: string, transaction?: Transaction): Promise<Contact> {
    const contact = await Contact.findOne({ where: { id: contactId, userId }, transaction });
    if (!contact) throw new NotFoundError(CONTACT_NOT_FOUND);
    return contact;
  }

  /** A contact added by hand; it also lifts an earlier deletion's suppression, so the sync fills it again. */
  async create(userId: string, input: NewContact, meta: RequestMeta): Promise<ContactRecord> {
    const accountId = await requireOwnEmailAccount(userId, input.accountId);
    const email = input.email.trim().toLowerCase();
    let id: string;
    try {
      id = await this.sequelize.transaction(async (transaction) => {
        const existing = await Contact.findOne({ where: { userId, emailAccountId: accountId, email }, attributes: ['id'], transaction });
        if (existing) throw new ConflictError(DUPLICATE);
        await this.sequelize.query('DELETE FROM contact_suppressions WHERE email_account_id = $accountId AND email = $email', {
          bind: { accountId, email },
          transaction,
        });
        const contact = await Contact.create(
          { userId, emailAccountId: accountId, email, name: input.name ?? null, notes: input.notes ?? null, lastEmailAt: null },
          { transaction },
        );
        await this.linkEarlierEmails(userId, accountId, contact.id, email, transaction);
        await this.audit.record(
          { action: AuditActions.contactCreated, userId, details: { contactId: contact.id, emailAccountId: accountId, email } },
          meta,
          transaction,
        );
        return contact.id;
      });
    } catch (err) {
      // Two requests racing past the check: the unique constraint decides, the loser gets the same 409.
      if (err instanceof UniqueConstraintError) throw new ConflictError(DUPLICATE);
      // The email account was removed between the check and the insert.
      if (err instanceof ForeignKeyConstraintError) throw new NotFoundError(ACCOUNT_NOT_FOUND);
      throw err;
    }
    return this.get(userId, id);
  }

  async update(userId: string, contactId: string, changes: ContactChanges): Promise<ContactRecord> {
    const values: Partial<Pick<Contact, 'name' | 'notes'>> = {};
    if (changes.name !== undefined) values.name = changes.name;
    if (changes.notes !== undefined) values.notes = changes.notes;
    const [changed] = await Contact.update(values, { where: { id: contactId, userId } });
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
    return this.sequelize.transaction(async (transaction) => {
      const target = await Contact.findOne({ where: { id: contactId, userId }, attributes: ['emailAccountId'], transaction });
      if (!target) throw new NotFoundError(CONTACT_NOT_FOUND);
      await this.serialiseAccountChanges(target.emailAccountId, transaction);
      const contact = await Contact.findOne({ where: { id: contactId, userId }, lock: transaction.LOCK.UPDATE, transaction });
      if (!contact) throw new NotFoundError(CONTACT_NOT_FOUND);
      const bind = { contactId };
      const [stats] = await this.select<{ emails: number; others: string[] }>(
        `SELECT (SELECT count(*) FROM emails WHERE contact_id = $contactId)::int AS emails,
                coalesce((SELECT array_agg(DISTINCT l.contact_id::text) FROM emails e JOIN email_contacts l ON l.email_id = e.id
                           WHERE e.contact_id = $contactId AND l.contact_id <> $contactId), '{}'::text[]) AS others`,
        bind,
        transaction,
      );
      await this.sequelize.query(
        'INSERT INTO contact_suppressions (email_account_id, email) VALUES ($accountId, $email) ON CONFLICT DO NOTHING',
        { bind: { accountId: contact.emailAccountId, email: contact.email }, transaction },
      );
      await contact.destroy({ transaction });
      if (stats!.others.length > 0) {
        await this.sequelize.query(
          `UPDATE contacts c SET last_email_at = (SELECT max(l.email_date) FROM email_contacts l WHERE l.contact_id = c.id)
            WHERE c.id = ANY($others::uuid[])`,
          { bind: { others: stats!.others }, transaction },
        );
      }
      await this.audit.record(
        {
          action: AuditActions.contactDeleted,
          userId,
          details: { contactId, emailAccountId: contact.emailAccountId, email: contact.email, deletedEmails: stats!.emails },
        },
        meta,
        transaction,
      );
      return { deletedEmails: stats!.emails };
    });
  }

  /**
   * Deletes of contacts that share emails cascade over the same emails and links in different orders
   * and deadlocked each other. They now take the account's turn first: an advisory lock (deletes of one
   * account one after the other) and the account's sync state row, which a sync batch holds until it
   * commits (so a delete also waits for a batch in progress instead of crossing it).
   */
  private async serialiseAccountChanges(accountId: string, transaction: Transaction): Promise<void> {
    await this.sequelize.query('SELECT pg_advisory_xact_lock($namespace, hashtext($accountId))', {
      bind: { namespace: CONTACT_DELETE_LOCK, accountId },
      transaction,
    });
    await this.sequelize.query('SELECT 1 FROM mail_sync_states WHERE email_account_id = $accountId FOR UPDATE', { bind: { accountId }, transaction });
  }

  /**
   * A contact added by hand shows the mail it already took part in: the sync keeps every email's
   * addresses in emails.participants (migration 0004), the same way it links contacts it creates.
   */
  private async linkEarlierEmails(userId: string, accountId: string, contactId: string, email: string, transaction: Transaction): Promise<void> {
    await this.sequelize.query(
      `WITH linked AS (
         INSERT INTO email_contacts (email_id, contact_id)
         SELECT e.id, $contactId::uuid FROM emails e
          WHERE e.email_account_id = $accountId AND e.user_id = $userId AND e.participants @> ARRAY[$email::text]
         ON CONFLICT DO NOTHING
         RETURNING email_id)
       UPDATE contacts SET last_email_at = (SELECT max(e.date) FROM linked l JOIN emails e ON e.id = l.email_id)
        WHERE id = $contactId::uuid AND EXISTS (SELECT 1 FROM linked)`,
      { bind: { userId, accountId, contactId, email }, transaction },
    );
  }

  private select<T extends object>(sql: string, bind: Record<string, unknown>, transaction?: Transaction): Promise<T[]> {
    return this.sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT, transaction });
  }
}
