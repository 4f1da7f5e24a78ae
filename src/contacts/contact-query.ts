import { accessToCompany, shownCompanyOf } from '../companies/company-visibility.js';
import { escapeLikeBeforeFold } from '../db/escape-like.js';
import type { Bind } from '../db/sql.js';
import { countWithAccess } from '../email-accounts/account-access.js';
import { accountsWith, rightCondition } from '../email-accounts/account-rights.js';
import { lookAheadBind, type PageRequest } from '../shared/pagination.js';

export type ContactSort = 'lastEmail' | 'name';

export interface ContactFilter {
  emailAccountId?: string;
  /** Only the contacts of this company (a company the caller does not see: 404, like an account filter). */
  companyId?: string;
  /** Words that must each occur in the name or the address, in any order; accents and letter case aside. */
  search?: string;
  sort: ContactSort;
}

// The SQL text of the contacts area, run by ContactRepository (and by the bench's EXPLAIN).
export const CONTACT_COLUMNS = `c.id, c.user_id, c.email_account_id, c.email, c.name, c.notes, c.phone, c.title, c.tags, c.added_at, c.last_email_at, c.created_at, c.updated_at`;

/** The company `{id, name}` of the contact row `alias` as the caller sees it, or NULL (company-visibility.ts). */
export const COMPANY_OF = shownCompanyOf;

/** Unread emails of one contact, from the partial index on the links (never a visit to the emails). */
export const UNREAD_COUNT_OF = (alias: string) => `(SELECT count(*) FROM email_contacts u WHERE u.contact_id = ${alias}.id AND NOT u.is_read)::int`;

/** Each order matches an index of 0009 exactly (email_account_id first), so one account's page is an index range. */
const ORDER_BY: Record<ContactSort, (alias: string) => string> = {
  lastEmail: (a) => `${a}.last_email_at DESC NULLS LAST, ${a}.id`,
  name: (a) => `lower(coalesce(${a}.name, ${a}.email)), ${a}.id`,
};

/** At most this many words of a search count (the rest would only narrow an already narrow list). */
const MAX_SEARCH_WORDS = 8;

/**
 * The folded word, or the word without its Slovak case ending (crm_sk_strip, migration 0065), occurs
 * in the stored text: "Kováčom" and "logistiky" find "Ján Kováč" and "Tatra Logistika". Substrings,
 * as before: the ending alone is cut (no other normalisation of the stem, which is no substring).
 * Two LIKEs the trigram index serves as one BitmapOr.
 */
export function wordOrStemLike(column: string, param: string): string {
  return `(${column} LIKE '%' || crm_fold(${param}) || '%' OR ${column} LIKE '%' || crm_sk_strip(crm_fold(${param})) || '%')`;
}

/**
 * Each word of a search, in any order, must occur in the contact's name or address, accents and
 * letter case aside, in any of its Slovak case forms: one condition per word over contacts.search_text
 * (migration 0025), whose trigram index serves each word of three letters or more. The word is folded
 * by the same crm_fold as the stored text, so "Kováč", "kovac" and "KOVÁČ" are one word.
 */
export function contactSearchConditions(search: string, bind: Bind, alias = 'c'): string[] {
  const words = search
    .split(/\s+/)
    .filter((w) => w !== '')
    .slice(0, MAX_SEARCH_WORDS);
  return words.map((word, i) => {
    bind[`word${i}`] = escapeLikeBeforeFold(word);
    return wordOrStemLike(`${alias}.search_text`, `$word${i}`);
  });
}

/**
 * One page of the contacts of every account the caller may see (own and shared), and its total.
 * Without a search, per account the first offset + limit contacts in the page's order are one index
 * range; the few accounts' ranges are merged and cut to the page. So a page costs the same on 1,000
 * or 100,000 emails and grows only with the caller's number of accounts, never with anyone else's.
 * With a search, the trigram index finds the matching contacts first (page and total alike), and
 * only those are sorted. The unread count runs only for the rows of the page and reads the partial
 * index of unread links.
 */
export function contactListQuery(userId: string, filter: ContactFilter, page: PageRequest) {
  const members = ['m.user_id = $userId', rightCondition('view')];
  // One row past the page (lookAheadBind): ContactRepository cuts it off and answers hasNext.
  const bind: Bind = { userId, ...lookAheadBind(page) };
  if (filter.emailAccountId) {
    members.push('m.email_account_id = $accountId');
    bind.accountId = filter.emailAccountId;
  }
  const order = ORDER_BY[filter.sort];
  const scope = `${accountsWith('view')}${filter.emailAccountId ? ' AND m.email_account_id = $accountId' : ''}`;
  const words = filter.search ? contactSearchConditions(filter.search, bind) : [];
  // A company's contacts are one probe per account of contacts_account_company_idx (migration 0027): the narrow path.
  if (filter.companyId) {
    words.push('c.company_id = $companyId');
    bind.companyId = filter.companyId;
  }
  const matching = [`c.email_account_id IN (${scope})`, ...words].join(' AND ');
  const pageRows =
    words.length > 0
      ? `SELECT ${CONTACT_COLUMNS} FROM contacts c WHERE ${matching} ORDER BY ${order('c')} LIMIT $limit OFFSET $offset`
      : `SELECT p.* FROM email_account_members m
           CROSS JOIN LATERAL (SELECT ${CONTACT_COLUMNS} FROM contacts c WHERE c.email_account_id = m.email_account_id
                                ORDER BY ${order('c')} LIMIT $window) p
          WHERE ${members.join(' AND ')}
          ORDER BY ${order('p')} LIMIT $limit OFFSET $offset`;
  return {
    bind,
    pageSql: `SELECT c.*, ${UNREAD_COUNT_OF('c')} AS unread_count, ${COMPANY_OF('c')} AS company
                FROM (${pageRows}) c
               ORDER BY ${order('c')}`,
    countSql: countWithAccess(`SELECT 1 FROM contacts c WHERE ${matching}`, filter, 'view') + (filter.companyId ? `, ${accessToCompany()} AS company_access` : ''),
  };
}
