/**
 * The SQL of the team inbox (docs/adr/0129-team-inbox.md). A conversation is a row of email_threads
 * (migrations 0028, 0033: kept by the triggers on emails in every writer's transaction); who may see
 * it is decided here, by the caller's membership row `m` of its account (account-rights.ts).
 *
 * Read state per member: an inbound email is unread for the caller unless they read it in the CRM
 * (email_reads) or, for the mailbox's owner only, the mailbox has it flagged read ($seen: a read in
 * another mail client of the owner's counts for the owner, and for nobody else).
 */
import type { Bind } from '../db/sql.js';
import { rightCondition } from '../email-accounts/account-rights.js';
import { countWithAccess } from '../email-accounts/account-access.js';
import { isFromColleague } from '../people/colleagues.js';
import { lookAheadBind, type PageRequest } from '../shared/pagination.js';
import { searchConditions, type WordShares } from '../emails/search-terms.js';

export type ConversationStatusFilter = 'open' | 'done' | 'all';

export interface ConversationFilter {
  emailAccountId?: string;
  /** 'me' is resolved to the caller's id by the service; 'none': unassigned. */
  assignee?: string;
  status: ConversationStatusFilter;
  unread?: boolean;
  search?: string;
}

/** The email `e` (of the thread) is unread for the caller whose membership row is `m`. */
export const UNREAD_FOR_CALLER = `NOT e.outbound AND NOT (m.role = 'owner' AND e.is_read)
  AND NOT EXISTS (SELECT 1 FROM email_reads r WHERE r.user_id = $userId AND r.email_id = e.id)`;

const THREAD_EMAILS = 'e.email_account_id = t.email_account_id AND e.thread_id = t.thread_id AND e.date IS NOT NULL';

/**
 * Everything a conversation item shows, for the page's rows only: counts and participants come from
 * the thread's emails through emails_thread_idx (a thread is a few to a few hundred emails).
 */
export const CONVERSATION_COLUMNS = `t.id, t.email_account_id, t.thread_id, t.message_count, t.last_message_at,
  t.last_inbound_at, t.last_outbound_at, (t.awaiting AND NOT ${isFromColleague('t.last_inbound_email_id')}) AS awaiting, t.status, t.status_changed_at, t.assignee_id,
  u.username AS assignee_username, u.first_name AS assignee_first_name, u.last_name AS assignee_last_name,
  (SELECT e.subject FROM emails e WHERE ${THREAD_EMAILS} ORDER BY e.date, e.id LIMIT 1) AS subject,
  (SELECT count(*)::int FROM emails e WHERE ${THREAD_EMAILS} AND ${UNREAD_FOR_CALLER}) AS unread_count,
  (SELECT coalesce(jsonb_agg(p.entry ORDER BY p.first_at, p.email), '[]'::jsonb) FROM (
     SELECT x.email, min(x.at) AS first_at,
            jsonb_build_object('email', x.email, 'name', (array_agg(x.name ORDER BY x.at DESC) FILTER (WHERE x.name IS NOT NULL))[1]) AS entry
       FROM (SELECT lower(btrim(a->>'email')) AS email, nullif(btrim(a->>'name'), '') AS name, e.date AS at
               FROM emails e
               CROSS JOIN LATERAL jsonb_array_elements(
                 coalesce(e.addresses->'from', '[]'::jsonb) || coalesce(e.addresses->'to', '[]'::jsonb) || coalesce(e.addresses->'cc', '[]'::jsonb)) a
              WHERE ${THREAD_EMAILS} AND jsonb_typeof(e.addresses) = 'object') x
      WHERE x.email <> '' AND x.email <> lower(acc.email)
      GROUP BY x.email ORDER BY min(x.at), x.email LIMIT 20) p) AS participants`;

/** The page's rows, joined to what the columns need: the account (own address), the assignee, the caller's membership. */
const ROW_JOINS = `JOIN email_accounts acc ON acc.id = t.email_account_id
  JOIN email_account_members m ON m.email_account_id = t.email_account_id AND m.user_id = $userId
  LEFT JOIN users u ON u.id = t.assignee_id`;

const ORDER = 't.last_message_at DESC, t.id';

/** One page of conversations and its (bounded) total, over the accounts whose emails the caller may read. */
export function conversationListQuery(userId: string, filter: ConversationFilter, page: PageRequest, shares: WordShares) {
  const { window, limit, offset } = lookAheadBind(page);
  const bind: Bind = { userId, limit, offset, window };
  const members = ['m.user_id = $userId', rightCondition('readEmails')];
  if (filter.emailAccountId) {
    bind.accountId = filter.emailAccountId;
    members.push('m.email_account_id = $accountId');
  }
  const threads = threadConditions(filter, bind, shares);
  const where = threads.join(' AND ');
  // An assignee's threads come from the assignee index across every account; everything else per
  // readable account along its activity index, merged and cut to the page (as the mailbox view does).
  const inner =
    filter.assignee && filter.assignee !== 'none'
      ? `SELECT t.id, t.last_message_at FROM email_account_members m JOIN email_threads t ON t.email_account_id = m.email_account_id
          WHERE ${members.join(' AND ')} AND ${where} ORDER BY ${ORDER} LIMIT $limit OFFSET $offset`
      : `SELECT p.id, p.last_message_at FROM email_account_members m
          CROSS JOIN LATERAL (SELECT t.id, t.last_message_at FROM email_threads t
                               WHERE t.email_account_id = m.email_account_id AND ${where} ORDER BY ${ORDER} LIMIT $window) p
          WHERE ${members.join(' AND ')} ORDER BY p.last_message_at DESC, p.id LIMIT $limit OFFSET $offset`;
  return {
    bind,
    pageSql: `SELECT ${CONVERSATION_COLUMNS} FROM (${inner}) page JOIN email_threads t ON t.id = page.id ${ROW_JOINS} ORDER BY ${ORDER}`,
    countSql: countWithAccess(
      `SELECT 1 FROM email_account_members m JOIN email_threads t ON t.email_account_id = m.email_account_id WHERE ${members.join(' AND ')} AND ${where}`,
      filter,
      'readEmails',
    ),
  };
}

/** The conditions on the thread `t` (the caller's membership row is `m` in every query that uses them). */
function threadConditions(filter: ConversationFilter, bind: Bind, shares: WordShares): string[] {
  const out: string[] = ['true'];
  if (filter.status !== 'all') {
    bind.status = filter.status;
    out.push('t.status = $status');
  }
  if (filter.assignee === 'none') out.push('t.assignee_id IS NULL');
  else if (filter.assignee) {
    bind.assignee = filter.assignee;
    out.push('t.assignee_id = $assignee');
  }
  if (filter.unread !== undefined) {
    const some = `EXISTS (SELECT 1 FROM emails e WHERE ${THREAD_EMAILS} AND ${UNREAD_FOR_CALLER})`;
    out.push(filter.unread ? some : `NOT ${some}`);
  }
  if (filter.search) {
    // Subject, participants and text of the thread's emails, through the stored search documents
    // (accent- and case-insensitive, prefixes as in the mailbox search).
    const conditions = searchConditions(filter.search, shares, bind);
    out.push(`EXISTS (SELECT 1 FROM emails e JOIN email_search s ON s.email_id = e.id WHERE ${THREAD_EMAILS} AND ${conditions.join(' AND ')})`);
  }
  return out;
}

/** One conversation with the caller's right to read it (`allowed`); no row: not the caller's to see. */
export const ONE_CONVERSATION = `SELECT ${CONVERSATION_COLUMNS}, ${rightCondition('readEmails')} AS allowed, ${rightCondition('triage')} AS may_triage
  FROM email_threads t ${ROW_JOINS} WHERE t.id = $conversationId`;
