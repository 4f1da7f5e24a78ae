/**
 * TEST-ONLY REFERENCE: the mailbox list query of release 0.2 (src/emails/email-query.ts and the search
 * conditions of src/emails/search-terms.ts before migration 0030), which computed the search document
 * per row from the email's columns (crm_email_search_vector, formerly behind the expression index
 * emails_search_idx). Kept verbatim so that test/emails/search-equivalence.test.ts and
 * bench/search-1m-bench.ts can run the old and the new query on the same data: the new one must find
 * the same ids, in the same order, with the same totals. Not used by the application.
 */
import type { Bind } from '../../src/db/sql.js';
import { countWithAccess } from '../../src/email-accounts/account-access.js';
import { accessToContact, rightCondition } from '../../src/email-accounts/account-rights.js';
import { lookAheadBind, type PageRequest } from '../../src/shared/pagination.js';
import { foldWord, searchTerms as currentTerms, type WordShares } from '../../src/emails/search-terms.js';
import { LIST_COLUMNS, type EmailFilter } from '../../src/emails/email-query.js';

const MAX_SEARCH_TERMS = 8;
const COMMON_WORD_SHARE = 0.02;
const EMAIL_SEARCH_VECTOR = 'crm_email_search_vector(e.subject, e.body, e."from", e."to")';
/** Release 0.5's crm_search_tsquery (migration 0018), which migration 0065 replaced: each word and its prefix. */
const OLD_TSQUERY = (param: string) =>
  `to_tsquery('simple'::regconfig, (SELECT string_agg(format('(%1$s | %1$s:*)', crm_tsquery_quote(t.lexeme)), ' & ') FROM unnest(to_tsvector('simple'::regconfig, crm_fold(${param}))) t))`;
/** Migration 0065's document, computed from the email's columns per row: what email_search must hold. */
const COMPUTED_DOCUMENT = `crm_email_search_document(e.subject, e.body, e."from", e."to", e.addresses,
  (SELECT string_agg(a.name, ' ' ORDER BY a.position) FROM email_attachments a WHERE a.email_id = e.id))`;

/**
 * Which search the reference runs: release 0.5's (its document and words, no word forms; the default)
 * or migration 0065's (words with stems, phrases, domains, names) computed per row instead of stored.
 */
export type ReferenceSearch = 'release-0.5' | 'computed-0065';

function searchTerms(search: string, shares: WordShares): Array<{ text: string; indexed: boolean }> {
  const words = search.split(/\s+/).filter(Boolean);
  const texts = words.length > MAX_SEARCH_TERMS ? [...words.slice(0, MAX_SEARCH_TERMS - 1), words.slice(MAX_SEARCH_TERMS - 1).join(' ')] : words;
  const common = texts.map((text) => shareOf(text, shares) >= COMMON_WORD_SHARE);
  const allCommon = common.every(Boolean);
  return texts.map((text, i) => ({ text, indexed: allCommon || !common[i] }));
}

function shareOf(text: string, shares: WordShares): number {
  const prefix = foldWord(text);
  let share = 0;
  for (const [lexeme, s] of shares) if (lexeme.startsWith(prefix)) share += s;
  return Math.min(share, 1);
}

function searchConditions(search: string, shares: WordShares, bind: Bind, reference: ReferenceSearch): string[] {
  bind.search = search;
  const conditions = ['crm_search_tsquery($search) IS NOT NULL'];
  if (reference === 'computed-0065') {
    currentTerms(search, shares).forEach((term, i) => {
      bind[`search${i}`] = term.text;
      const query = term.phrase ? `crm_search_phrase($search${i})` : `crm_search_tsquery($search${i})`;
      conditions.push(`(${query} IS NULL OR (${COMPUTED_DOCUMENT} @@ ${query}) IS TRUE)`);
    });
    return conditions;
  }
  searchTerms(search, shares).forEach((term, i) => {
    bind[`search${i}`] = term.text;
    const match = `${EMAIL_SEARCH_VECTOR} @@ ${OLD_TSQUERY(`$search${i}`)}`;
    conditions.push(`(${OLD_TSQUERY(`$search${i}`)} IS NULL OR ${term.indexed ? match : `(${match}) IS TRUE`})`);
  });
  return conditions;
}

/**
 * One page of a mailbox view and its total, over the accounts whose emails the caller may read (own
 * and shared with can_read). Both orders follow an index: (email_account_id, date DESC, id) per
 * account for the whole mailbox (or its partial twin for unread), merged over the caller's few
 * accounts; (contact_id, email_date DESC, email_id) on the links for one contact. So a page costs the
 * same on 1,000 or 100,000 emails, however many people the account is shared with.
 */
export function oldEmailListQuery(userId: string, filter: EmailFilter, page: PageRequest, wordShares: WordShares = new Map(), reference: ReferenceSearch = 'release-0.5') {
  // One row past the page (lookAheadBind): EmailRepository cuts it off and answers hasNext.
  const { window, ...limits } = lookAheadBind(page);
  const bind: Bind = { userId, ...limits };
  const emailConditions: string[] = [];
  if (filter.emailAccountId) bind.accountId = filter.emailAccountId;
  if (filter.search) emailConditions.push(...searchConditions(filter.search, wordShares, bind, reference));
  if (filter.from) bind.from = filter.from;
  if (filter.before) bind.before = filter.before;

  if (filter.contactId) {
    bind.contactId = filter.contactId;
    if (filter.emailAccountId) emailConditions.push('e.email_account_id = $accountId');
    const linkConditions = ['l.contact_id = $contactId', ...rangeAndState('l.email_date', 'l.is_read', filter)];
    // Every email linked to a contact is of the contact's account: one check of the caller's right on
    // that account (evaluated once, not per row) scopes the whole page.
    const where = [...linkConditions, `${accessToContact('readEmails')} IS TRUE`, ...emailConditions].join(' AND ');
    const from = 'email_contacts l JOIN emails e ON e.id = l.email_id';
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

  const members = ['m.user_id = $userId', rightCondition('readEmails'), ...(filter.emailAccountId ? ['m.email_account_id = $accountId'] : [])];
  const conditions = [...rangeAndState('e.date', 'e.is_read', filter), ...emailConditions];
  if (filter.search) {
    // A search finds few rows through its own (GIN) index, once for all accounts; they are then
    // filtered by account and sorted. Per account (below) the index would be read once per account.
    const where = [`e.email_account_id IN (SELECT m.email_account_id FROM email_account_members m WHERE ${members.join(' AND ')})`, ...conditions].join(' AND ');
    return {
      bind,
      pageSql: `SELECT ${LIST_COLUMNS} FROM emails e WHERE ${where} ORDER BY ${pageOrder(filter, 'e.date', 'e.id')} LIMIT $limit OFFSET $offset`,
      countSql: countWithAccess(`SELECT 1 FROM emails e WHERE ${where}`, filter, 'readEmails'),
    };
  }
  const where = ['e.email_account_id = m.email_account_id', ...conditions].join(' AND ');
  bind.window = window;
  return {
    bind,
    // Per account the first offset + limit (id, date) pairs, merged and cut to the page; only then the
    // page's rows are read (a preview is never computed for a row that is not shown).
    pageSql: `SELECT ${LIST_COLUMNS}
                FROM (SELECT p.id, p.date FROM email_account_members m
                        CROSS JOIN LATERAL (SELECT e.id, e.date FROM emails e WHERE ${where} ORDER BY ${pageOrder(filter, 'e.date', 'e.id')} LIMIT $window) p
                       WHERE ${members.join(' AND ')}
                       ORDER BY ${pageOrder(filter, 'p.date', 'p.id')} LIMIT $limit OFFSET $offset) page
                JOIN emails e ON e.id = page.id
               ORDER BY ${pageOrder(filter, 'e.date', 'e.id')}`,
    countSql: countWithAccess(`SELECT 1 FROM email_account_members m JOIN emails e ON ${where} WHERE ${members.join(' AND ')}`, filter, 'readEmails'),
  };
}

/**
 * The page order: newest is the indexes' own order (date DESC, id); oldest is exactly that order read
 * backwards (date ASC NULLS LAST, id DESC), so both are one index range and neither needs a sort.
 */
function pageOrder(filter: EmailFilter, date: string, id: string): string {
  return filter.sort === 'oldest' ? `${date} ASC, ${id} DESC` : `${date} DESC, ${id}`;
}

function rangeAndState(dateColumn: string, readColumn: string, filter: EmailFilter): string[] {
  const out: string[] = [];
  if (filter.unread !== undefined) out.push(filter.unread ? `NOT ${readColumn}` : readColumn);
  if (filter.from) out.push(`${dateColumn} >= $from`);
  if (filter.before) out.push(`${dateColumn} < $before`);
  return out;
}
