/**
 * The mailbox view narrowed to named emails (`ids`: a live email.created names up to 50) or to one
 * thread (`threadId`, with or without its account): the emails are found by key (primary key, or
 * emails_thread_idx), never by walking a mailbox, and only those of accounts whose emails the caller
 * may read are answered. An id the caller may not read is simply absent: a batch read tells nothing
 * about other people's mail.
 */
import type { Bind } from '../db/sql.js';
import { countWithAccess } from '../email-accounts/account-access.js';
import { rightCondition } from '../email-accounts/account-rights.js';
import { lookAheadBind, type PageRequest } from '../shared/pagination.js';
import { awaitingReplyCondition, LIST_COLUMNS, pageOrder, type EmailFilter } from './email-query.js';
import { searchConditions, type WordShares } from './search-terms.js';

export function directListQuery(userId: string, filter: EmailFilter, page: PageRequest, wordShares: WordShares = new Map()) {
  const { limit, offset } = lookAheadBind(page);
  const bind: Bind = { userId, limit, offset };
  const conditions = [rightCondition('readEmails')];
  if (filter.ids) {
    bind.ids = filter.ids;
    conditions.push('e.id = ANY($ids::uuid[])');
  }
  if (filter.threadId) {
    bind.threadId = filter.threadId;
    conditions.push('e.thread_id = $threadId');
  }
  if (filter.emailAccountId) {
    bind.accountId = filter.emailAccountId;
    conditions.push('e.email_account_id = $accountId');
  }
  if (filter.contactId) {
    bind.contactId = filter.contactId;
    conditions.push('EXISTS (SELECT 1 FROM email_contacts l WHERE l.email_id = e.id AND l.contact_id = $contactId)');
  }
  if (filter.personId) {
    // The email's account is readable (above), so its link to a contact of that account shows the person to the caller.
    bind.personId = filter.personId;
    conditions.push('EXISTS (SELECT 1 FROM email_contacts l JOIN contacts c ON c.id = l.contact_id WHERE l.email_id = e.id AND c.person_id = $personId)');
  }
  if (filter.unread !== undefined) conditions.push(filter.unread ? 'NOT e.is_read' : 'e.is_read');
  if (filter.from) {
    bind.from = filter.from;
    conditions.push('e.date >= $from');
  }
  if (filter.before) {
    bind.before = filter.before;
    conditions.push('e.date < $before');
  }
  if (filter.awaitingReply) conditions.push(awaitingReplyCondition('e.id'));
  const search = filter.search ? searchConditions(filter.search, wordShares, bind) : [];
  const from = `emails e JOIN email_account_members m ON m.email_account_id = e.email_account_id AND m.user_id = $userId${
    search.length > 0 ? ' JOIN email_search s ON s.email_id = e.id' : ''
  }`;
  const where = [...conditions, ...search].join(' AND ');
  return {
    bind,
    pageSql: `SELECT ${LIST_COLUMNS} FROM ${from} WHERE ${where} ORDER BY ${pageOrder(filter, 'e.date', 'e.id')} LIMIT $limit OFFSET $offset`,
    countSql: countWithAccess(`SELECT 1 FROM ${from} WHERE ${where}`, filter, 'readEmails'),
  };
}
