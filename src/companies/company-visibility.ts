/**
 * Which companies a caller sees, as SQL: THE definition, used by the companies' own queries and by
 * the contacts area (a contact's companyId, GET /api/contacts?companyId=). Nothing is cached: a
 * share removed or a mailbox added applies to the very next query.
 *
 * - The staff's own domains are not companies: a company whose domain is the domain of any email
 *   account of the installation is hidden (read time, so a mailbox added later hides its domain at
 *   once, and removing the last one shows the company again; docs/adr/0117).
 * - A caller sees a company when they see at least one of its contacts: a contact of an email
 *   account they own or that is shared with them (account-rights.ts, right "view").
 * - A caller changes it only through such an account on which they hold "editCompanies" (owner or
 *   editor with can_read): seeing it through a viewer's share is no right to what others wrote.
 */
import { accountsWith } from '../email-accounts/account-rights.js';

export const COMPANY_NOT_FOUND = 'Firma neexistuje';

/** True when the domain (an SQL expression) is one of the installation's own: one probe of email_accounts_domain_idx. */
export const isOwnDomain = (domainSql: string): string => `EXISTS (SELECT 1 FROM email_accounts a WHERE crm_mail_domain(a.email) = ${domainSql})`;

/** The contacts of the company `companyAlias` that the caller (bind `$userId`) may see. */
export const visibleContactsOf = (companyAlias: string): string =>
  `SELECT 1 FROM contacts k WHERE k.company_id = ${companyAlias}.id AND k.email_account_id IN (${accountsWith('view')})`;

/**
 * The company of the contact row `alias` as its readers see it, as JSON `{id, name}` with the name
 * they see (the domain where staff gave none): NULL for no company and for a company of an own
 * domain. Two primary-key probes and one of the domain index, per row of a page.
 */
export const shownCompanyOf = (alias: string): string =>
  `(SELECT json_build_object('id', co.id, 'name', coalesce(co.name, co.domain)) FROM contacts k JOIN companies co ON co.id = k.company_id
     WHERE k.id = ${alias}.id AND NOT ${isOwnDomain('co.domain')})`;

/**
 * The caller's sight of the company `$companyId` as one SQL value: true when they see it, NULL when
 * not (unknown, an own domain, or none of its contacts visible to them): a 404, no existence leak.
 */
export const accessToCompany = (): string => `(SELECT true FROM companies co WHERE co.id = $companyId AND NOT ${isOwnDomain('co.domain')} AND EXISTS (${visibleContactsOf('co')}))`;

/**
 * The caller's right to change the company `$companyId` as one SQL value: NULL when they do not see
 * it (404, as above), false when they see it but hold the right "editCompanies" on none of the
 * accounts that show it (403, as a viewer gets on the contact), true when they may.
 */
export const editAccessToCompany = (): string =>
  `(SELECT EXISTS (SELECT 1 FROM contacts k WHERE k.company_id = co.id AND k.email_account_id IN (${accountsWith('editCompanies')}))
      FROM companies co WHERE co.id = $companyId AND NOT ${isOwnDomain('co.domain')} AND EXISTS (${visibleContactsOf('co')}))`;
