/**
 * A person's emails across the caller's mailboxes (GET /api/emails?personId=, issue 46): the emails
 * linked to any contact of the person in an account whose mail the caller may read
 * (src/people/person-visibility.ts). Per such contact the first offset + limit links in page order
 * along the links' index (contact_id, email_date DESC, email_id), merged, each email once (an email
 * with two of the person's addresses is linked to both), cut to the page: a person of a few
 * addresses in a few mailboxes costs a few index ranges. The email-side filters (search, awaiting,
 * account) apply inside each range, so a range still yields its first matching rows.
 */
import type { Bind } from '../db/sql.js';
import { countWithAccess } from '../email-accounts/account-access.js';
import { seesPerson, visibleContactsOf } from '../people/person-visibility.js';
import { lookAheadBind, type PageRequest } from '../shared/pagination.js';
import { awaitingReplyCondition, type EmailFilter, LIST_COLUMNS, pageOrder, rangeAndState } from './email-query.js';
import { searchConditions, type WordShares } from './search-terms.js';

export function personEmailsQuery(userId: string, filter: EmailFilter, page: PageRequest, wordShares: WordShares = new Map()) {
  const { window, limit, offset } = lookAheadBind(page);
  const bind: Bind = { userId, limit, offset, window, personId: filter.personId };
  if (filter.emailAccountId) bind.accountId = filter.emailAccountId;
  if (filter.from) bind.from = filter.from;
  if (filter.before) bind.before = filter.before;
  const search = filter.search ? searchConditions(filter.search, wordShares, bind) : [];
  const contacts = `SELECT c.id FROM ${visibleContactsOf('$personId')}${filter.emailAccountId ? ' AND c.email_account_id = $accountId' : ''}`;
  const links = `email_contacts l${search.length > 0 ? ' JOIN email_search s ON s.email_id = l.email_id' : ''}`;
  const where = [
    'l.contact_id = pc.id',
    ...rangeAndState('l.email_date', 'l.is_read', filter),
    ...(filter.awaitingReply ? [awaitingReplyCondition('l.email_id')] : []),
    ...search,
  ].join(' AND ');
  const linkOrder = pageOrder(filter, 'l.email_date', 'l.email_id');
  const ranges = `SELECT l.email_id, l.email_date FROM (${contacts}) pc
                    CROSS JOIN LATERAL (SELECT l.email_id, l.email_date FROM ${links} WHERE ${where} ORDER BY ${linkOrder} LIMIT $window) l
                   GROUP BY l.email_id, l.email_date`;
  return {
    bind,
    pageSql: `SELECT ${LIST_COLUMNS} FROM (${ranges} ORDER BY ${linkOrder} LIMIT $limit OFFSET $offset) l
                JOIN emails e ON e.id = l.email_id ORDER BY ${pageOrder(filter, 'e.date', 'e.id')}`,
    countSql: `${countWithAccess(`SELECT DISTINCT l.email_id FROM (${contacts}) pc CROSS JOIN LATERAL (SELECT l.email_id FROM ${links} WHERE ${where}) l`, filter, 'readEmails')}, ${seesPerson('$personId')} AS person_access`,
  };
}
