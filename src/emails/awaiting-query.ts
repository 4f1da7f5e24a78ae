/**
 * Conversations awaiting a reply (docs/adr/0118-awaiting-reply.md): a thread whose newest dated email
 * came from outside the mailbox and was not followed by one the mailbox sent. email_threads (migration
 * 0028, kept by the triggers emails_threads_add/_change/_remove, functions crm_email_threads_add,
 * _change, _remove and crm_email_threads_refresh, in the writer's transaction) holds per thread the newest inbound
 * email and the newest outbound date; its partial index lists the awaiting ones per account by date.
 */
import type { Bind } from '../db/sql.js';
import { countWithAccess } from '../email-accounts/account-access.js';
import { isFromColleague } from '../people/colleagues.js';
import { rightCondition } from '../email-accounts/account-rights.js';
import { lookAheadBind, type PageRequest } from '../shared/pagination.js';
import { emailListQuery, LIST_COLUMNS, pageOrder, type EmailFilter, type HitsFound, type SearchStrategy } from './email-query.js';
import type { WordShares } from './search-terms.js';
import { directListQuery } from './direct-query.js';
import { personEmailsQuery } from './person-emails-query.js';

/** The list query for a filter: the awaiting-reply view below when it applies, else the email list's own. */
export function mailboxListQuery(userId: string, filter: EmailFilter, page: PageRequest, wordShares?: WordShares, how?: SearchStrategy | HitsFound) {
  if (filter.ids || filter.threadId) return directListQuery(userId, filter, page, wordShares);
  if (filter.personId) return personEmailsQuery(userId, filter, page, wordShares);
  return filter.awaitingReply && !filter.contactId && !filter.search ? awaitingListQuery(userId, filter, page) : emailListQuery(userId, filter, page, wordShares, how);
}

/**
 * The mailbox view with awaitingReply and neither a contact nor a search: per readable account the
 * first offset + limit awaiting threads along email_threads_awaiting_idx (date DESC; oldest first reads
 * it backwards), merged and cut to the page, and only then the page's emails are read. The thread's
 * date is its newest inbound email's date, so the order is the email list's own (date, id).
 */
export function awaitingListQuery(userId: string, filter: EmailFilter, page: PageRequest) {
  const { window, ...limits } = lookAheadBind(page);
  const bind: Bind = { userId, ...limits, window };
  const members = ['m.user_id = $userId', rightCondition('readEmails')];
  if (filter.emailAccountId) {
    bind.accountId = filter.emailAccountId;
    members.push('m.email_account_id = $accountId');
  }
  // A colleague's message awaits nobody (src/people/colleagues.ts): left out before the window is cut.
  const conditions = ['t.email_account_id = m.email_account_id', 't.awaiting', `NOT ${isFromColleague('t.last_inbound_email_id')}`];
  if (filter.from) {
    bind.from = filter.from;
    conditions.push('t.last_inbound_at >= $from');
  }
  if (filter.before) {
    bind.before = filter.before;
    conditions.push('t.last_inbound_at < $before');
  }
  // The read state lives on the email: joined only when it is asked about.
  const source = filter.unread === undefined ? 'email_threads t' : 'email_threads t JOIN emails e ON e.id = t.last_inbound_email_id';
  if (filter.unread !== undefined) conditions.push(filter.unread ? 'NOT e.is_read' : 'e.is_read');
  const where = conditions.join(' AND ');
  return {
    bind,
    pageSql: `SELECT ${LIST_COLUMNS}
                FROM (SELECT p.id, p.date FROM email_account_members m
                        CROSS JOIN LATERAL (SELECT t.last_inbound_email_id AS id, t.last_inbound_at AS date FROM ${source}
                                             WHERE ${where} ORDER BY ${pageOrder(filter, 't.last_inbound_at', 't.last_inbound_email_id')} LIMIT $window) p
                       WHERE ${members.join(' AND ')}
                       ORDER BY ${pageOrder(filter, 'p.date', 'p.id')} LIMIT $limit OFFSET $offset) page
                JOIN emails e ON e.id = page.id
               ORDER BY ${pageOrder(filter, 'e.date', 'e.id')}`,
    countSql: countWithAccess(`SELECT 1 FROM email_account_members m JOIN ${source} ON ${where} WHERE ${members.join(' AND ')}`, filter, 'readEmails'),
  };
}
