import type { Bind } from '../db/sql.js';
import { countWithOwnership } from '../email-accounts/account-access.js';
import { offsetOf, type PageRequest } from '../shared/pagination.js';

export interface EmailFilter {
  /** Emails in which the contact took part (email_contacts), not only those it is the main correspondent of. */
  contactId?: string;
  accountId?: string;
  /** true: unread only; false: read only. */
  unread?: boolean;
  /** Words in subject or body; each word also matches as a prefix ("fakt" finds "faktúra"). */
  search?: string;
  /** Inclusive lower bound of the email's date. */
  from?: Date;
  /** Exclusive upper bound. */
  before?: Date;
}

// The SQL text of the emails area, run by EmailRepository (and by the bench's EXPLAIN).
const BASE_COLUMNS = `e.id, e.user_id, e.email_account_id, e.contact_id, e.jmap_id, e.message_id, e.thread_id, e.in_reply_to,
  e."from", e."to", e.subject, e.is_read, e.read_pending, e.date, e.created_at, e.updated_at`;

/** Enough characters for a preview after whitespace is collapsed; left() reads only a slice of a large body. */
export const PREVIEW_SOURCE_CHARS = 600;

export const LIST_COLUMNS = `${BASE_COLUMNS}, left(e.body, ${PREVIEW_SOURCE_CHARS}) AS body_start`;
export const FULL_COLUMNS = `${BASE_COLUMNS}, e.body,
  ARRAY(SELECT l.contact_id::text FROM email_contacts l WHERE l.email_id = e.id ORDER BY (l.contact_id = e.contact_id) DESC, l.contact_id) AS contact_ids`;

/**
 * The search text goes through the same parser as the indexed documents (so an address or a URL
 * stays one token), and every lexeme becomes a quoted prefix term: user input is never parsed as
 * tsquery syntax. crm_search_tsquery (migration 0011) does that; it is immutable, so the planner
 * evaluates it and estimates the actual words: a word in most of a mailbox is then searched along the
 * mailbox's date index instead of through an index entry listing every email of the installation.
 */
const SEARCH_QUERY = 'crm_search_tsquery($search)';

/**
 * One page of a mailbox view and its total. Both orders follow an index: (user_id, date DESC, id) for
 * the whole mailbox (or its partial twin for unread), (contact_id, email_date DESC, email_id) on the
 * links for one contact, so a page costs the same on 1,000 or 100,000 emails.
 */
export function emailListQuery(userId: string, filter: EmailFilter, page: PageRequest) {
  const bind: Bind = { userId, limit: page.limit, offset: offsetOf(page) };
  const emailConditions: string[] = [];
  if (filter.accountId) {
    emailConditions.push('e.email_account_id = $accountId');
    bind.accountId = filter.accountId;
  }
  if (filter.search) {
    emailConditions.push(`e.search_vector @@ ${SEARCH_QUERY}`);
    bind.search = filter.search;
  }
  if (filter.from) bind.from = filter.from;
  if (filter.before) bind.before = filter.before;

  if (filter.contactId) {
    bind.contactId = filter.contactId;
    const linkConditions = ['l.contact_id = $contactId', ...rangeAndState('l.email_date', 'l.is_read', filter)];
    const where = [...linkConditions, 'e.user_id = $userId', ...emailConditions].join(' AND ');
    const from = 'email_contacts l JOIN emails e ON e.id = l.email_id';
    // Without email-side filters the page is cut from the contact's links alone (their index is in
    // page order) and only then joined: the planner cannot know that all of a contact's emails are
    // its user's, and would otherwise sort every link of a busy contact in a large installation.
    const pageSql =
      emailConditions.length === 0
        ? `SELECT ${LIST_COLUMNS} FROM (SELECT l.email_id, l.email_date FROM email_contacts l WHERE ${linkConditions.join(' AND ')}
                                         ORDER BY l.email_date DESC, l.email_id LIMIT $limit OFFSET $offset) l
             JOIN emails e ON e.id = l.email_id WHERE e.user_id = $userId ORDER BY l.email_date DESC, l.email_id`
        : `SELECT ${LIST_COLUMNS} FROM ${from} WHERE ${where} ORDER BY l.email_date DESC, l.email_id LIMIT $limit OFFSET $offset`;
    return {
      bind,
      pageSql,
      // Without email-side filters the links alone count; if the contact is not the caller's, the
      // ownership check beside the count turns the answer into a 404 anyway.
      countSql: countWithOwnership(
        emailConditions.length === 0
          ? `SELECT count(*) FROM email_contacts l WHERE ${linkConditions.join(' AND ')}`
          : `SELECT count(*) FROM ${from} WHERE ${where}`,
        filter,
      ),
    };
  }

  const where = ['e.user_id = $userId', ...rangeAndState('e.date', 'e.is_read', filter), ...emailConditions].join(' AND ');
  return {
    bind,
    pageSql: `SELECT ${LIST_COLUMNS} FROM emails e WHERE ${where} ORDER BY e.date DESC, e.id LIMIT $limit OFFSET $offset`,
    countSql: countWithOwnership(`SELECT count(*) FROM emails e WHERE ${where}`, filter),
  };
}

function rangeAndState(dateColumn: string, readColumn: string, filter: EmailFilter): string[] {
  const out: string[] = [];
  if (filter.unread !== undefined) out.push(filter.unread ? `NOT ${readColumn}` : readColumn);
  if (filter.from) out.push(`${dateColumn} >= $from`);
  if (filter.before) out.push(`${dateColumn} < $before`);
  return out;
}
