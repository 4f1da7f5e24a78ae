import { escapeLike } from '../db/escape-like.js';
import type { Bind } from '../db/sql.js';
import { countWithOwnership } from '../email-accounts/account-access.js';
import { offsetOf, type PageRequest } from '../shared/pagination.js';

export type ContactSort = 'latest' | 'name';

export interface ContactFilter {
  emailAccountId?: string;
  /** Part of the name or the address, case-insensitive. */
  search?: string;
  sort: ContactSort;
}

// The SQL text of the contacts area, run by ContactRepository (and by the bench's EXPLAIN).
export const CONTACT_COLUMNS = `c.id, c.user_id, c.email_account_id, c.email, c.name, c.notes, c.added_at, c.last_email_at, c.created_at, c.updated_at`;

/** Unread emails of one contact, from the partial index on the links (never a visit to the emails). */
export const UNREAD_COUNT_OF = (alias: string) =>
  `(SELECT count(*) FROM email_contacts u WHERE u.contact_id = ${alias}.id AND NOT u.is_read)::int`;

/** Each order matches an index of 0001 exactly (user_id first), so a page is an index range, not a sort. */
const ORDER_BY: Record<ContactSort, string> = {
  latest: 'c.last_email_at DESC NULLS LAST, c.id',
  name: 'lower(coalesce(c.name, c.email)), c.id',
};

/**
 * One page of a user's contacts and its total. The unread count runs only for the rows of the page,
 * after LIMIT/OFFSET picked them, and reads the partial index of unread links.
 */
export function contactListQuery(userId: string, filter: ContactFilter, page: PageRequest) {
  const where = ['c.user_id = $userId'];
  const bind: Bind = { userId, limit: page.limit, offset: offsetOf(page) };
  if (filter.emailAccountId) {
    where.push('c.email_account_id = $accountId');
    bind.accountId = filter.emailAccountId;
  }
  if (filter.search) {
    where.push('(c.email LIKE $pattern OR lower(c.name) LIKE $pattern)');
    bind.pattern = `%${escapeLike(filter.search.toLowerCase())}%`;
  }
  const order = ORDER_BY[filter.sort];
  return {
    bind,
    pageSql: `SELECT c.*, ${UNREAD_COUNT_OF('c')} AS unread_count
                FROM (SELECT ${CONTACT_COLUMNS} FROM contacts c WHERE ${where.join(' AND ')}
                      ORDER BY ${order} LIMIT $limit OFFSET $offset) c
               ORDER BY ${order}`,
    countSql: countWithOwnership(`SELECT count(*) FROM contacts c WHERE ${where.join(' AND ')}`, filter),
  };
}
