/**
 * The company of a contact's address, shared by the sync (contacts it creates) and the contacts area
 * (a contact added by hand), as contact-mail-links.ts is: one implementation, so both file a person
 * under the same company. A company is its domain, whatever else: the staff's own domains get a row
 * too, and are hidden where companies are read (company-visibility.ts), so a mailbox added or removed
 * later changes what shows at once, without rewriting contacts.
 */
import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';
import { companyDomainOf } from './free-mail-domains.js';

/**
 * Makes sure a company row exists for the domain of each address (free-mail domains left out) and
 * answers the company domain of each address that has one. Its own statement, before the contacts'
 * write: that one reads the companies in a snapshot of its own (READ COMMITTED), which sees a row
 * another sync committed while this INSERT waited on it, so two mailboxes meeting a new domain at
 * the same moment both get the one row.
 *
 * The rows are then held FOR KEY SHARE until the caller's transaction ends: a company goes with its
 * last contact (migration 0075), and the trigger that deletes it locks it FOR UPDATE before it looks
 * for contacts, so it waits for this writer and then sees the contact filed here. A company deleted
 * between the INSERT and the lock (its last contact went in that instant) is inserted again.
 */
export async function ensureCompanies(sql: Sql, addresses: readonly string[], tx?: Tx): Promise<Map<string, string>> {
  const domainOf = new Map<string, string>();
  for (const address of addresses) {
    const domain = companyDomainOf(address);
    if (domain) domainOf.set(address, domain);
  }
  if (domainOf.size === 0) return domainOf;
  // Sorted: concurrent writers meet the unique index and take the locks in the same order.
  const domains = [...new Set(domainOf.values())].sort();
  for (let attempt = 1; ; attempt++) {
    await sql.execute('INSERT INTO companies (domain) SELECT d FROM unnest($domains::text[]) AS d ORDER BY d ON CONFLICT (domain) DO NOTHING', { domains }, tx);
    const held = await sql.select<{ domain: string }>('SELECT domain FROM companies WHERE domain = ANY($domains::text[]) ORDER BY domain FOR KEY SHARE', { domains }, tx);
    if (held.length === domains.length || attempt === 3) return domainOf;
  }
}

/** The statement fragment that finds the company id of a domain expression (NULL for none). */
export const companyIdOfDomain = (domainSql: string): string => `(SELECT co.id FROM companies co WHERE co.domain = ${domainSql})`;
