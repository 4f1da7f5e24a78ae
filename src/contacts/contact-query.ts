import { escapeLike } from '../db/escape-like.js';
import type { Bind } from '../db/sql.js';
import { countWithAccess } from '../email-accounts/account-access.js';
import { accountsWith, rightCondition } from '../email-accounts/account-rights.js';
import { offsetOf, type PageRequest } from '../shared/pagination.js';

export type ContactSort = 'lastEmail' | 'name';

export interface ContactFilter {
  emailAccountId?: string;
  /** Part of the name or the address, case-insensitive. */
  search?: string;
  sort: ContactSort;
}

// The SQL text of the contacts area, run by ContactRepository (and by the bench's EXPLAIN).
export const CONTACT_COLUMNS = `c.id, c.user_id, c.email_account_id, c.email, c.name, c.notes, c.added_at, c.last_email_at, c.created_at, c.updated_at`;

/** Unread emails of one contact, from the partial index on the links (never a visit to the emails). */
export const UNREAD_COUNT_OF = (alias: string) => `(SELECT count(*) FROM email_contacts u WHERE u.contact_id = ${alias}.id AND NOT u.is_read)::int`;

/** Each order matches an index of 0009 exactly (email_account_id first), so one account's page is an index range. */
const ORDER_BY: Record<ContactSort, (alias: string) => string> = {
  lastEmail: (a) => `${a}.last_email_at DESC NULLS LAST, ${a}.id`,
  name: (a) => `lower(coalesce(${a}.name, ${a}.email)), ${a}.id`,
};

/**
 * One page of the contacts of every account the caller may see (own and shared), and its total.
 * Per account, the first offset + limit contacts in the page's order are one index range; the few
 * accounts' ranges are merged and cut to the page. So a page costs the same on 1,000 or 100,000
 * emails and grows only with the caller's number of accounts, never with anyone else's. The unread
 * count runs only for the rows of the page and reads the partial index of unread links.
 */
export function contactListQuery(userId: string, filter: ContactFilter, page: PageRequest) {
  const conditions = ['c.email_account_id = m.email_account_id'];
  const members = ['m.user_id = $userId', rightCondition('view')];
  const bind: Bind = { userId, limit: page.limit, offset: offsetOf(page), window: offsetOf(page) + page.limit };
  if (filter.emailAccountId) {
    members.push('m.email_account_id = $accountId');
    bind.accountId = filter.emailAccountId;
  }
  if (filter.search) {
    conditions.push('(c.email LIKE $pattern OR lower(c.name) LIKE $pattern)');
    bind.pattern = `%${escapeLike(filter.search.toLowerCase())}%`;
  }
  const order = ORDER_BY[filter.sort];
  const scope = `${accountsWith('view')}${filter.emailAccountId ? ' AND m.email_account_id = $accountId' : ''}`;
  const countWhere = [`c.email_account_id IN (${scope})`, ...conditions.slice(1)].join(' AND ');
  return {
    bind,
    pageSql: `SELECT c.*, ${UNREAD_COUNT_OF('c')} AS unread_count
                FROM (SELECT p.* FROM email_account_members m
                        CROSS JOIN LATERAL (SELECT ${CONTACT_COLUMNS} FROM contacts c WHERE ${conditions.join(' AND ')}
                                             ORDER BY ${order('c')} LIMIT $window) p
                       WHERE ${members.join(' AND ')}
                       ORDER BY ${order('p')} LIMIT $limit OFFSET $offset) c
               ORDER BY ${order('c')}`,
    countSql: countWithAccess(`SELECT 1 FROM contacts c WHERE ${countWhere}`, filter, 'view'),
  };
}
