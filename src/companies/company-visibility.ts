/**
 * Which companies a caller sees, as SQL: THE definition, used by the companies' own queries and by
 * the contacts, people and templates areas (a contact's company, GET /api/contacts?companyId=, a
 * person's company, {{company.name}}). Nothing is cached: a share removed or a mailbox added applies
 * to the very next query.
 *
 * - The staff's own domains are not companies: a company whose domain is the domain of any email
 *   account of the installation is hidden (read time, so a mailbox added later hides its domain at
 *   once, and removing the last one shows the company again; docs/adr/0117).
 * - A caller sees a company only through mail they may read (issue 52, finding 1; docs/adr/0136):
 *   one of its contacts, in an email account whose mail they may read (account-rights.ts, right
 *   "readEmails"), has mail (last_email_at set: the contact is linked to an email of that account,
 *   contact-mail-links.ts). An address typed by hand (or imported) with no mail is no key to what
 *   colleagues wrote about the company, nor to its existence or age: the company is not found (404)
 *   and a contact of it shows no company.
 * - A caller changes it only through such an account on which they hold "editCompanies" (owner or
 *   editor with can_read): seeing it through a viewer's share is no right to what others wrote.
 */
import { accountsWith, type AccountRight } from '../email-accounts/account-rights.js';

export const COMPANY_NOT_FOUND = 'Firma neexistuje';

/** True when the domain (an SQL expression) is one of the installation's own: one probe of email_accounts_domain_idx. */
export const isOwnDomain = (domainSql: string): string => `EXISTS (SELECT 1 FROM email_accounts a WHERE crm_mail_domain(a.email) = ${domainSql})`;

/**
 * The contacts of the company `companyAlias` through which the caller (bind `$userId`) meets it in
 * mail: in an account whose mail they may read, with mail. `right` is "readEmails" or a right that
 * includes it ("editCompanies"). One range of contacts_account_company_idx per account (last_email_at
 * is in its INCLUDE).
 */
export const mailContactsOf = (companyAlias: string, right: Extract<AccountRight, 'readEmails' | 'editCompanies'> = 'readEmails'): string =>
  `SELECT 1 FROM contacts k WHERE k.company_id = ${companyAlias}.id AND k.last_email_at IS NOT NULL AND k.email_account_id IN (${accountsWith(right)})`;

/** The company row `companyAlias` is shown to the caller: not an own domain, and met through mail they may read. */
export const companyShownTo = (companyAlias: string): string => `NOT ${isOwnDomain(`${companyAlias}.domain`)} AND EXISTS (${mailContactsOf(companyAlias)})`;

/**
 * The company of the contact row `alias` as the caller sees it, as JSON `{id, name}` with the name
 * they see (the domain where staff gave none): NULL for no company, for a company of an own domain,
 * and for one the caller does not meet through mail (their contact alone unlocks nothing).
 */
export const shownCompanyOf = (alias: string): string =>
  `(SELECT json_build_object('id', co.id, 'name', coalesce(co.name, co.domain)) FROM contacts k JOIN companies co ON co.id = k.company_id
     WHERE k.id = ${alias}.id AND ${companyShownTo('co')})`;

/** The shown name of the company `companyIdSql` (an SQL expression), as shownCompanyOf decides it; NULL where that is NULL. */
export const shownCompanyName = (companyIdSql: string): string =>
  `(SELECT coalesce(co.name, co.domain) FROM companies co WHERE co.id = ${companyIdSql} AND ${companyShownTo('co')})`;

/**
 * The caller's sight of the company `$companyId` as one SQL value: true when they see it, NULL when
 * not (unknown, an own domain, or not met through mail they may read): a 404, no existence leak.
 */
export const accessToCompany = (): string => `(SELECT true FROM companies co WHERE co.id = $companyId AND ${companyShownTo('co')})`;

/**
 * The caller's right to change the company `$companyId` as one SQL value: NULL when they do not see
 * it (404, as above), false when they see it but hold the right "editCompanies" on none of the
 * accounts through which they meet it in mail (403, as a viewer gets on the contact), true when they may.
 */
export const editAccessToCompany = (): string =>
  `(SELECT EXISTS (${mailContactsOf('co', 'editCompanies')}) FROM companies co WHERE co.id = $companyId AND ${companyShownTo('co')})`;
