import type { Bind } from '../db/sql.js';
import { countWithAccess } from '../email-accounts/account-access.js';
import { accessToContact, rightCondition } from '../email-accounts/account-rights.js';
import { COUNT_BOUND, lookAheadBind, type PageRequest } from '../shared/pagination.js';
import { isFromColleague } from '../people/colleagues.js';
import { hitsByIdSql, hitsSql, searchConditions, searchTerms, type WordShares } from './search-terms.js';

export interface EmailFilter {
  /** Emails in which the contact took part (email_contacts), not only those it is the main correspondent of. */
  contactId?: string;
  /** Emails in which any address of the person the caller sees took part, across their readable mailboxes (person-emails-query.ts). */
  personId?: string;
  emailAccountId?: string;
  /** true: unread only; false: read only. */
  unread?: boolean;
  /** Words in subject or body; each word also matches as a prefix ("fakt" finds "faktúra"). */
  search?: string;
  /** Inclusive lower bound of the email's date. */
  from?: Date;
  /** Exclusive upper bound. */
  before?: Date;
  /** Default newest first; oldest first reads the same indexes backwards. */
  sort?: 'newest' | 'oldest';
  /** Only the newest inbound email of each thread awaiting a reply (awaiting-query.ts). */
  awaitingReply?: boolean;
  /** Only these emails (at most 100; direct-query.ts). */
  ids?: string[];
  /** Only this JMAP thread (direct-query.ts). */
  threadId?: string;
}

/**
 * The email `e` is the newest inbound email of a thread awaiting a reply (email_threads, migration
 * 0028), and not a colleague's (src/people/colleagues.ts: mail between staff awaits nobody): probes of
 * the threads' email index and of the sender's address per row. The mailbox view without a contact or
 * a search is driven by the threads' own index instead (awaiting-query.ts).
 */
export function awaitingReplyCondition(emailId: string): string {
  return `EXISTS (SELECT 1 FROM email_threads t WHERE t.last_inbound_email_id = ${emailId} AND t.awaiting) AND NOT ${isFromColleague(emailId)}`;
}

/** The email-side filters that are neither the search nor the date range / read state. */
function awaitingConditions(filter: EmailFilter, emailId: string): string[] {
  return filter.awaitingReply ? [awaitingReplyCondition(emailId)] : [];
}

// The SQL text of the emails area, run by EmailRepository (and by the bench's EXPLAIN).
const BASE_COLUMNS = `e.id, e.user_id, e.email_account_id, e.contact_id, e.jmap_id, e.message_id, e.thread_id, e.in_reply_to,
  e."from", e."to", e.subject, e.is_read, e.read_pending, e.outbound, e.date, e.has_attachments, e.addresses, e.created_at, e.updated_at`;

/** Enough characters for a preview after whitespace is collapsed; left() reads only a slice of a large body. */
export const PREVIEW_SOURCE_CHARS = 600;

export const LIST_COLUMNS = `${BASE_COLUMNS}, left(e.body, ${PREVIEW_SOURCE_CHARS}) AS body_start`;
export const FULL_COLUMNS = `${BASE_COLUMNS}, e.body,
  ARRAY(SELECT l.contact_id::text FROM email_contacts l WHERE l.email_id = e.id ORDER BY (l.contact_id = e.contact_id) DESC, l.contact_id) AS contact_ids`;

/**
 * One page of a mailbox view and its total, over the accounts whose emails the caller may read (own
 * and shared with can_read). Both orders follow an index: (email_account_id, date DESC, id) per
 * account for the whole mailbox (or its partial twin for unread, or email_search's twin for a
 * search), merged over the caller's few accounts; (contact_id, email_date DESC, email_id) on the
 * links for one contact. So a page costs the same on 1,000 or 100,000 emails, however many people the
 * account is shared with.
 */
export function emailListQuery(userId: string, filter: EmailFilter, page: PageRequest, wordShares: WordShares = new Map(), how: SearchStrategy | HitsFound = 'index') {
  // One row past the page (lookAheadBind): EmailRepository cuts it off and answers hasNext.
  const { window, ...limits } = lookAheadBind(page);
  const bind: Bind = { userId, ...limits };
  if (filter.emailAccountId) bind.accountId = filter.emailAccountId;
  const { hits, searchWhere, foundWhere, countHits } = searchSources(filter, wordShares, how, bind);
  const withHits = hits ? `WITH hits AS MATERIALIZED (${hits}) ` : '';
  if (filter.from) bind.from = filter.from;
  if (filter.before) bind.before = filter.before;
  if (filter.contactId) return contactQuery(filter, bind, searchWhere);

  const members = ['m.user_id = $userId', rightCondition('readEmails'), ...(filter.emailAccountId ? ['m.email_account_id = $accountId'] : [])];
  bind.window = window;
  // Per account the first offset + limit (id, date) pairs, merged and cut to the page; only then the
  // page's rows are read (a preview is never computed for a row that is not shown). A search reads the
  // account's search documents in the same order (a common word fills a page within a few rows) or
  // finds a selective word through their GIN index; either way no document is computed at query time.
  const source = hits ? accountSource(filter, foundWhere, 'hits') : accountSource(filter, searchWhere, 'email_search');
  const counted = countHits ? accountSource(filter, foundWhere, 'counted_hits') : source;
  const order = pageOrder(filter, 'p.date', 'p.id');
  return {
    bind,
    pageSql: `${withHits}SELECT ${LIST_COLUMNS}
                FROM (SELECT p.id, p.date FROM email_account_members m
                        CROSS JOIN LATERAL (SELECT ${source.id} AS id, ${source.date} AS date FROM ${source.from}
                                             WHERE ${source.where.join(' AND ')} ORDER BY ${pageOrder(filter, source.date, source.id)} LIMIT $window) p
                       WHERE ${members.join(' AND ')}
                       ORDER BY ${order} LIMIT $limit OFFSET $offset) page
                JOIN emails e ON e.id = page.id
               ORDER BY ${pageOrder(filter, 'e.date', 'e.id')}`,
    // A search counts per account too (each account's range read at most up to the bound): as one join
    // over several accounts the planner may scan the whole table for the bound's rows.
    countSql:
      (countHits
        ? `WITH counted_hits AS MATERIALIZED (${countHits} AND (s.email_account_id IN (SELECT m.email_account_id FROM email_account_members m WHERE ${members.join(' AND ')})) IS TRUE) `
        : withHits) +
      countWithAccess(
        searchWhere.length > 0
          ? `SELECT 1 FROM email_account_members m
             CROSS JOIN LATERAL (SELECT 1 FROM ${counted.from} WHERE ${counted.where.join(' AND ')} LIMIT ${COUNT_BOUND + 1}) found
            WHERE ${members.join(' AND ')}`
          : `SELECT 1 FROM email_account_members m JOIN ${source.from} ON ${source.where.join(' AND ')} WHERE ${members.join(' AND ')}`,
        filter,
        'readEmails',
      ),
  };
}

/**
 * The search's parts of a list query (none without a search). The conditions name the stored
 * document of email_search (alias s, migration 0030); the hits' CTE has the same columns (docs/adr/0151).
 * - `hits`: the hits' CTE (`hits` strategy): as the repository's probe found them (their ids), else looked up;
 * - `searchWhere`: every word, on email_search read in page order (or as index conditions, `index`);
 * - `foundWhere`: only the words the index did not look up, on the rows it found (the hits, the walk's total);
 * - `countHits`: the walk's total: the selective words through the GIN index alone, the account a plain
 *   filter (IS TRUE: never an index condition, so the planner does not AND the bitmap with the
 *   account's whole date index, which cost seconds at a million emails).
 */
function searchSources(filter: EmailFilter, wordShares: WordShares, how: SearchStrategy | HitsFound, bind: Bind) {
  if (!filter.search) return { hits: null, searchWhere: [], foundWhere: [], countHits: null };
  const strategy = typeof how === 'string' ? how : 'hits';
  let hits: string | null = null;
  if (typeof how !== 'string') {
    bind.hitIds = how.hitIds;
    hits = hitsByIdSql(filter.search, wordShares);
  } else if (strategy === 'hits') hits = hitsSql(filter.search, wordShares, bind);
  return {
    hits,
    searchWhere: searchConditions(filter.search, wordShares, bind, strategy === 'index' ? 'index' : 'filter'),
    foundWhere: searchConditions(filter.search, wordShares, {}, 'found'),
    countHits: strategy === 'walk' && !filter.contactId ? hitsSql(filter.search, wordShares, {}) : null,
  };
}

/**
 * Whether the caller's documents that a search's selective terms find are exactly the list's rows, so
 * that their count (the repository's probe, bounded as every total) is the total: every term selective
 * (the index alone decides each) and nothing else filtered (no mailbox, contact, read state, dates or
 * awaiting reply). The probe counts over the same readable mailboxes as the list.
 */
export function searchCountIsTotal(filter: EmailFilter, shares: WordShares): boolean {
  const others = filter.contactId || filter.emailAccountId || filter.unread !== undefined || filter.from || filter.before || filter.awaitingReply;
  return !others && !!filter.search && searchTerms(filter.search, shares).every((t) => t.indexed);
}

/**
 * How a search finds its rows (docs/adr/0151): `hits`, the few documents the selective words find
 * through the GIN index (at most HIT_BOUND, counted first by the repository), sorted into the page;
 * `walk`, every word tested on the account's documents read in page order (a word in many emails
 * fills a page within a few rows), the total counted with the selective words through the index;
 * `index`, the planner's choice (the selective words as index conditions).
 */
export type SearchStrategy = 'index' | 'walk' | 'hits';

/** The `hits` strategy with the hits the repository's probe found (their ids): the index is not asked again. */
export interface HitsFound {
  hitIds: readonly string[];
}

/**
 * The rows of one account (m.email_account_id) in page order. The read state is only in emails: with
 * an unread / read filter the emails' (partial) date index leads and each row's document is looked up
 * by its key; otherwise a search reads email_search alone and the plain list emails alone.
 */
function accountSource(
  filter: EmailFilter,
  searchWhere: string[],
  documents: 'email_search' | 'hits' | 'counted_hits',
): { from: string; id: string; date: string; where: string[] } {
  if (searchWhere.length > 0 && filter.unread === undefined) {
    const where = ['s.email_account_id = m.email_account_id', ...rangeAndState('s.date', '', filter), ...searchWhere, ...awaitingConditions(filter, 's.email_id')];
    return { from: `${documents} s`, id: 's.email_id', date: 's.date', where };
  }
  const from = searchWhere.length > 0 ? `emails e JOIN ${documents} s ON s.email_id = e.id` : 'emails e';
  const where = ['e.email_account_id = m.email_account_id', ...rangeAndState('e.date', 'e.is_read', filter), ...searchWhere, ...awaitingConditions(filter, 'e.id')];
  return { from, id: 'e.id', date: 'e.date', where };
}

/**
 * A contact's emails: every email linked to a contact is of the contact's account, so one check of
 * the caller's right on that account (evaluated once, not per row) scopes the whole page. The links'
 * index (contact_id, email_date DESC, email_id) gives the page order. The links' email_date and is_read
 * are copies the database keeps: crm_email_contacts_copy_email() fills a new link (trigger
 * email_contacts_fill_email), crm_emails_copy_to_links() follows the email (trigger emails_copy_to_links);
 * both migration 0006.
 */
function contactQuery(filter: EmailFilter, bind: Bind, searchWhere: string[]) {
  bind.contactId = filter.contactId;
  const emailConditions = [...(filter.emailAccountId ? ['e.email_account_id = $accountId'] : []), ...searchWhere, ...awaitingConditions(filter, 'e.id')];
  const linkConditions = ['l.contact_id = $contactId', ...rangeAndState('l.email_date', 'l.is_read', filter)];
  const where = [...linkConditions, `${accessToContact('readEmails')} IS TRUE`, ...emailConditions].join(' AND ');
  const from = `email_contacts l JOIN emails e ON e.id = l.email_id${searchWhere.length > 0 ? ' JOIN email_search s ON s.email_id = l.email_id' : ''}`;
  const linkOrder = pageOrder(filter, 'l.email_date', 'l.email_id');
  // Without email-side filters the page is cut from the contact's links alone (their index is in
  // page order) and only then joined: the planner cannot know that all of a contact's emails are
  // visible to the caller, and would otherwise sort every link of a busy contact in a large installation.
  const pageSql =
    emailConditions.length === 0
      ? `SELECT ${LIST_COLUMNS} FROM (SELECT l.email_id, l.email_date FROM email_contacts l WHERE ${linkConditions.join(' AND ')}
                                       ORDER BY ${linkOrder} LIMIT $limit OFFSET $offset) l
           JOIN emails e ON e.id = l.email_id WHERE ${accessToContact('readEmails')} IS TRUE ORDER BY ${linkOrder}`
      : `SELECT ${LIST_COLUMNS} FROM ${from} WHERE ${where} ORDER BY ${linkOrder} LIMIT $limit OFFSET $offset`;
  return {
    bind,
    pageSql,
    // Without email-side filters the links alone count; if the caller may not read the contact's
    // emails, the access check beside the count turns the answer into a 404 / 403 anyway.
    countSql: countWithAccess(
      emailConditions.length === 0
        ? `SELECT 1 FROM email_contacts l WHERE ${linkConditions.join(' AND ')}`
        : `SELECT 1 FROM ${from} WHERE ${linkConditions.join(' AND ')} AND ${emailConditions.join(' AND ')}`,
      filter,
      'readEmails',
    ),
  };
}

/**
 * The page order: newest is the indexes' own order (date DESC, id); oldest is exactly that order read
 * backwards (date ASC NULLS LAST, id DESC), so both are one index range and neither needs a sort.
 */
export function pageOrder(filter: EmailFilter, date: string, id: string): string {
  return filter.sort === 'oldest' ? `${date} ASC, ${id} DESC` : `${date} DESC, ${id}`;
}

/** The date range, and the read state when readColumn is given. */
export function rangeAndState(dateColumn: string, readColumn: string, filter: EmailFilter): string[] {
  const out: string[] = [];
  if (filter.unread !== undefined && readColumn) out.push(filter.unread ? `NOT ${readColumn}` : readColumn);
  if (filter.from) out.push(`${dateColumn} >= $from`);
  if (filter.before) out.push(`${dateColumn} < $before`);
  return out;
}
