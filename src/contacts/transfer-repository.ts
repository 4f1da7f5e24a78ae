import { companyIdOfDomain, ensureCompanies } from '../companies/company-assignment.js';
import { shownCompanyName } from '../companies/company-visibility.js';
import { companyDomainOf } from '../companies/free-mail-domains.js';
import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';
import { linkEarlierEmails } from './contact-mail-links.js';
import type { ContactValues, ExistingContact } from './import-plan.js';

/** A contact as the export writes it. */
export interface ExportContact {
  id: string;
  sort_key: string;
  email: string;
  name: string | null;
  phone: string | null;
  company: string | null;
  title: string | null;
  tags: string[];
  notes: string | null;
}

/** The export's order, an index of migration 0009 exactly (contacts_account_name_idx): each batch is one index range. */
const EXPORT_ORDER = 'lower(coalesce(c.name, c.email))';

/**
 * The data access of an address book import and export. Import: one statement per kind of write,
 * whatever the number of rows (the rows travel as one JSON parameter, read by jsonb_to_recordset as
 * the sync's upsert does), so 10,000 rows are a handful of statements in one transaction. Export:
 * batches in name order, each after the last row of the one before (keyset), so no statement or
 * transaction stays open while a slow client reads.
 */
/**
 * The company of the contact `c` as the caller (bind `$userId`) sees it, and so as their export writes
 * it: its name, else its domain; none where the contacts list shows none (company-visibility.ts: an
 * imported or typed address with no mail names no company, issue 52 finding 1).
 */
const SHOWN_COMPANY = shownCompanyName('c.company_id');

export class ContactTransferRepository {
  constructor(private readonly sql: Sql) {}

  /** The mailbox's contacts of these addresses (companies as `userId` sees them); locked FOR UPDATE inside a real run, so a concurrent edit waits. */
  async existing(userId: string, accountId: string, emails: readonly string[], lock: boolean, tx?: Tx): Promise<Map<string, ExistingContact>> {
    const rows = await this.sql.select<ExistingContact>(
      `SELECT c.id, c.email, c.name, c.phone, c.title, c.notes, c.tags, ${SHOWN_COMPANY} AS company FROM contacts c
        WHERE c.email_account_id = $accountId AND c.email = ANY($emails::text[]) ORDER BY c.id${lock ? ' FOR UPDATE' : ''}`,
      { userId, accountId, emails },
      tx,
    );
    return new Map(rows.map((r) => [r.email, r]));
  }

  /** Company rows for the new contacts' domains (a statement of its own, as company-assignment.ts asks). */
  async ensureCompanies(emails: readonly string[], tx: Tx): Promise<void> {
    await ensureCompanies(this.sql, emails, tx);
  }

  /**
   * The new contacts, under the mailbox's owner and their domain's company; answers their ids. Written
   * in address order, as the sync writes its contacts: each row takes its address's person row as it
   * goes (migration 0083), so two writers of the same new addresses never wait for each other crosswise.
   */
  async insert(ownerId: string, accountId: string, contacts: readonly ContactValues[], tx: Tx): Promise<string[]> {
    if (contacts.length === 0) return [];
    const rows = await this.sql.select<{ id: string }>(
      `INSERT INTO contacts (user_id, email_account_id, email, name, phone, title, notes, tags, company_id)
       SELECT $ownerId, $accountId, v.email, v.name, v.phone, v.title, v.notes, v.tags, ${companyIdOfDomain('v.domain')}
         FROM jsonb_to_recordset($rows::jsonb) AS v(email text, name text, phone text, title text, notes text, tags text[], domain text)
        ORDER BY v.email
       RETURNING id`,
      // The domain as the sync files it: none for a free-mail address (free-mail-domains.ts).
      { ownerId, accountId, rows: JSON.stringify(contacts.map((c) => ({ ...c, domain: companyDomainOf(c.email) }))) },
      tx,
    );
    return rows.map((r) => r.id);
  }

  /** The changed contacts, each with all its compared fields (those the file did not change keep their value). */
  async update(contacts: ReadonlyArray<ContactValues & { id: string }>, tx: Tx): Promise<void> {
    if (contacts.length === 0) return;
    await this.sql.execute(
      `UPDATE contacts c SET name = v.name, phone = v.phone, title = v.title, notes = v.notes, tags = v.tags, updated_at = now()
         FROM jsonb_to_recordset($rows::jsonb) AS v(id uuid, name text, phone text, title text, notes text, tags text[])
        WHERE c.id = v.id`,
      { rows: JSON.stringify(contacts) },
      tx,
    );
  }

  /** Addresses added by hand again: the sync may fill them from now on (as POST /api/contacts does). */
  async liftSuppressions(accountId: string, emails: readonly string[], tx: Tx): Promise<void> {
    if (emails.length === 0) return;
    await this.sql.execute('DELETE FROM contact_suppressions WHERE email_account_id = $accountId AND email = ANY($emails::text[])', { accountId, emails }, tx);
  }

  /** The new contacts show the mail they already took part in (contact-mail-links.ts). */
  linkEarlierEmails(contactIds: readonly string[], tx: Tx): Promise<void> {
    return linkEarlierEmails(this.sql, contactIds, tx);
  }

  /** The next `batch` contacts of the mailbox in name order after `after` (none: from the start), with the company name readers see. */
  exportBatch(userId: string, accountId: string, after: { key: string; id: string } | null, batch: number): Promise<ExportContact[]> {
    return this.sql.select<ExportContact>(
      `SELECT c.id, ${EXPORT_ORDER} AS sort_key, c.email, c.name, c.phone, c.title, c.tags, c.notes,
              ${SHOWN_COMPANY} AS company
         FROM contacts c
        WHERE c.email_account_id = $accountId${after ? ` AND (${EXPORT_ORDER}, c.id) > ($afterKey, $afterId::uuid)` : ''}
        ORDER BY ${EXPORT_ORDER}, c.id LIMIT $batch`,
      { userId, accountId, batch, ...(after ? { afterKey: after.key, afterId: after.id } : {}) },
    );
  }
}
