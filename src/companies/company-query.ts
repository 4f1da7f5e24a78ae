import { escapeLikeBeforeFold } from '../db/escape-like.js';
import type { Bind } from '../db/sql.js';
import { accountsWith } from '../email-accounts/account-rights.js';
import { lookAheadBind, type PageRequest } from '../shared/pagination.js';
import { wordOrStemLike } from '../contacts/contact-query.js';
import { isOwnDomain } from './company-visibility.js';

export type CompanySort = 'lastEmail' | 'name' | 'contactCount';

export interface CompanyFilter {
  /** Words that must each occur in the name or the domain, in any order; accents and letter case aside. */
  search?: string;
  sort: CompanySort;
}

/**
 * Whose contacts count: a user's (those of the email accounts they may see), or every contact of
 * the installation (crm-admin companies list).
 */
export type CompanyScope = { userId: string } | { everyone: true };

const COMPANY_COLUMNS = 'co.id, co.domain, co.name, co.notes, co.registration_number, co.vat_id, co.address, co.phone, co.website, co.created_at, co.updated_at';

/** The name a reader sees (the domain where staff gave none), for sorting. */
const SHOWN_NAME = 'lower(coalesce(co.name, co.domain))';

const ORDER_BY: Record<CompanySort, string> = {
  lastEmail: `v.last_email_at DESC NULLS LAST, ${SHOWN_NAME}, co.id`,
  name: `${SHOWN_NAME}, co.id`,
  contactCount: `v.contact_count DESC, ${SHOWN_NAME}, co.id`,
};

const MAX_SEARCH_WORDS = 8;

/** Each word, folded by crm_fold as companies.search_text is, must occur in the name or the domain, in any Slovak case form. */
function searchConditions(search: string, bind: Bind): string[] {
  const words = search
    .split(/\s+/)
    .filter((w) => w !== '')
    .slice(0, MAX_SEARCH_WORDS);
  return words.map((word, i) => {
    bind[`word${i}`] = escapeLikeBeforeFold(word);
    return wordOrStemLike('co.search_text', `$word${i}`);
  });
}

/**
 * The companies with at least one contact in scope, each with its figures over those contacts only:
 * the scope's contacts that have a company are grouped by it (contacts_account_company_idx holds them,
 * last_email_at included: one index-only range per account). For a user, a company counts only when
 * they meet it through mail they may read (company-visibility.ts: a contact with mail in an account
 * whose mail they read); the own domains' companies are left out, then the search and the order
 * apply. A user sees few companies (those of their mailboxes' correspondents), so the count is exact.
 */
function figures(scope: CompanyScope, bind: Bind, companyId?: string): string {
  const conditions = ['c.company_id IS NOT NULL'];
  let met = '';
  if ('userId' in scope) {
    bind.userId = scope.userId;
    conditions.push(`c.email_account_id IN (${accountsWith('view')})`);
    met = ` HAVING bool_or(c.last_email_at IS NOT NULL AND c.email_account_id IN (${accountsWith('readEmails')}))`;
  }
  if (companyId) {
    bind.companyId = companyId;
    conditions.push('c.company_id = $companyId');
  }
  return `SELECT c.company_id, count(*)::int AS contact_count, max(c.last_email_at) AS last_email_at
            FROM contacts c WHERE ${conditions.join(' AND ')} GROUP BY c.company_id${met}`;
}

export function companyListQuery(scope: CompanyScope, filter: CompanyFilter, page: PageRequest) {
  const bind: Bind = { ...lookAheadBind(page) };
  const where = [`NOT ${isOwnDomain('co.domain')}`, ...(filter.search ? searchConditions(filter.search, bind) : [])].join(' AND ');
  const rows = `FROM (${figures(scope, bind)}) v JOIN companies co ON co.id = v.company_id WHERE ${where}`;
  return {
    bind,
    // One row past the page (lookAheadBind): the repository cuts it off and answers hasNext.
    pageSql: `SELECT ${COMPANY_COLUMNS}, v.contact_count, v.last_email_at ${rows} ORDER BY ${ORDER_BY[filter.sort]} LIMIT $limit OFFSET $offset`,
    countSql: `SELECT count(*)::int AS total ${rows}`,
  };
}

/** One company with its figures over the caller's contacts; no row when the caller sees none of them (or it is an own domain). */
export function companyQuery(userId: string, companyId: string) {
  const bind: Bind = {};
  const sql = `SELECT ${COMPANY_COLUMNS}, v.contact_count, v.last_email_at
                 FROM (${figures({ userId }, bind, companyId)}) v JOIN companies co ON co.id = v.company_id
                WHERE NOT ${isOwnDomain('co.domain')}`;
  return { sql, bind };
}
