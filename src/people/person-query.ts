/**
 * The SQL text of the people area, run by PersonRepository (and by the bench's EXPLAIN). Who sees
 * what is person-visibility.ts; these only combine it.
 *
 * The order of a list is the caller's own: a person's newest email over the contacts they see
 * (lastEmailAt, newest first, people without mail last), ties by the id of that best contact; i.e. a
 * person stands where their first contact stands in the caller's contacts ordered along
 * contacts_account_last_email_idx (last_email_at DESC NULLS LAST, id) and merged over their accounts.
 */
import { accessToCompany, companyShownTo } from '../companies/company-visibility.js';
import type { Bind } from '../db/sql.js';
import { accountsWith } from '../email-accounts/account-rights.js';
import { isColleague, notColleague } from './colleagues.js';
import { bindWords, wordMatches } from './person-search.js';
import { visibleContactsOf } from './person-visibility.js';
import { walkedContacts, walkedPeople } from './person-walk.js';

export interface PersonFilter {
  /** Words that must each occur in the name, an address or the company (as the caller sees them), in any order. */
  search?: string;
  /** Only the people filed under this company (a company the caller does not see: 404). */
  companyId?: string;
  /** Only the people with this tag, accents and letter case aside. */
  tag?: string;
  /** Colleagues (the installation's own addresses) too. */
  includeColleagues: boolean;
}

/** The caller's sight of one person, over the contacts they see (`c`, visibleContactsOf). */
const SIGHT_COLUMNS = `max(c.last_email_at) AS last_email_at,
  (array_agg(c.id ORDER BY c.last_email_at DESC NULLS LAST, c.id))[1] AS first_contact_id,
  (array_agg(c.name ORDER BY c.last_email_at DESC NULLS LAST, c.id) FILTER (WHERE c.name IS NOT NULL))[1] AS contact_name,
  array_agg(c.email ORDER BY c.last_email_at DESC NULLS LAST, c.email) AS emails,
  array_agg(DISTINCT c.email_account_id::text) AS account_ids,
  count(*) AS n`;

/** The sight lateral of `people p` (as `v`), with extra aggregate columns (a search's hits). */
const sight = (extra: string[] = []) => `CROSS JOIN LATERAL (SELECT ${[SIGHT_COLUMNS, ...extra].join(', ')} FROM ${visibleContactsOf('p.id')}) v`;

/**
 * The company as the caller sees it (`sc`: id, shown name, search text): only through mail they read
 * with the person (v.last_email_at) and with the company (companyShownTo).
 */
const SHOWN_COMPANY = `LEFT JOIN LATERAL (SELECT co.id, coalesce(co.name, co.domain) AS name, co.search_text FROM companies co
    WHERE v.last_email_at IS NOT NULL AND co.id = p.company_id AND ${companyShownTo('co')}) sc ON true`;

/** The shared fields only where the caller meets the person in mail (person-visibility.ts). */
const shared = (column: string, empty = 'NULL') => `CASE WHEN v.last_email_at IS NOT NULL THEN p.${column} ELSE ${empty} END`;

/**
 * The person `$personId` as a template fills them ({{contact.name}}, {{company.name}}): the name and
 * company the caller sees (the shared ones only through mail), and the caller's own names (`u`).
 */
export function personPlaceholderQuery(): string {
  return `SELECT coalesce(${shared('name')}, v.contact_name) AS contact_name, sc.name AS company_name, u.first_name, u.last_name
            FROM people p JOIN users u ON u.id = $userId ${sight()} ${SHOWN_COMPANY}
           WHERE p.id = $personId AND v.n > 0`;
}

/** Every field of a person item, for the people `$ids` the caller sees (others give no row). */
export function personDetailsQuery(): string {
  return `SELECT p.id, ${shared('name')} AS shared_name, ${shared('phone')} AS phone, ${shared('title')} AS title,
                 ${shared('tags', "'{}'::text[]")} AS tags, ${shared('notes')} AS notes,
                 CASE WHEN sc.id IS NULL THEN NULL ELSE json_build_object('id', sc.id, 'name', sc.name) END AS company,
                 v.contact_name, v.emails, v.account_ids, v.last_email_at, ${isColleague('p.id')} AS colleague
            FROM people p ${sight()} ${SHOWN_COMPANY}
           WHERE p.id = ANY($ids::uuid[]) AND v.n > 0`;
}

/**
 * The list without a search, company or tag: the persons of the caller's first `$rows` contacts in
 * the list's order (person-walk.ts: `walked`, the number of contacts read, and `people`, one per
 * contact), colleagues left out unless asked for.
 */
export function personWalkQuery(filter: PersonFilter): string {
  const prefilter = filter.includeColleagues ? [] : [notColleague('k.id')];
  return `WITH walked AS MATERIALIZED (${walkedContacts()})
          SELECT (SELECT count(*) FROM walked)::int AS walked, ${walkedPeople({ prefilter, conditions: [] }, 'everyone')} AS people`;
}

/**
 * The unfiltered list counts exactly up to this many people (`totalExact` false and the bound beyond,
 * as the contacts' COUNT_BOUND works): a count of distinct people is a join of every contact counted,
 * so it is bounded ten times lower than a count of contacts (bench/people-bench.ts). Paging goes on
 * past it with `hasNext`.
 */
export const PEOPLE_COUNT_BOUND = 1_000;

/** How many contacts the bounded count reads: three per person of the bound. */
const COUNT_CONTACTS = 3 * PEOPLE_COUNT_BOUND;

/**
 * The unfiltered list's count: the distinct people of the caller's first COUNT_CONTACTS contacts
 * (the caller's contacts by account, each carrying its person), and whether it stopped
 * there (`scanned`). `bounded: false` counts them all, for the rare caller whose contacts average
 * more than three per person (PersonRepository asks it only then).
 */
export function personCountQuery(filter: PersonFilter, bounded = true): string {
  const counted = filter.includeColleagues ? 'true' : notColleague('c.person_id');
  return `SELECT (count(DISTINCT c.person_id) FILTER (WHERE ${counted}))::int AS total, count(*)::int AS scanned
            FROM (SELECT c.person_id FROM contacts c WHERE c.email_account_id IN (${accountsWith('readEmails')})${bounded ? ` LIMIT ${COUNT_CONTACTS}` : ''}) c`;
}

/** The answer of personCountQuery read as the list's total (a full count asked when the bounded one cannot tell). */
export function countVerdict(row: { total: number; scanned: number }): { total: number; totalExact: boolean } | 'count-all' {
  if (row.total > PEOPLE_COUNT_BOUND) return { total: PEOPLE_COUNT_BOUND, totalExact: false };
  if (row.scanned < COUNT_CONTACTS) return { total: row.total, totalExact: true };
  return 'count-all';
}

/**
 * What a person of a filtered list must pass (over the person `k.id`): `prefilter` over the person
 * alone, `conditions` over their sight too (`sight`, the lateral `v` of the contacts the caller sees:
 * the order columns and a search's hits). The company and the tag count only where the shared fields
 * are shown; a word is found in one of the names, addresses or the shown company as the caller sees
 * them. Shared by the ordered match and the walk (person-walk.ts), so both decide
 * alike.
 */
function personChecks(filter: PersonFilter, words: readonly string[]): { sight: string; prefilter: string[]; conditions: string[] } {
  const prefilter: string[] = [];
  const conditions = ['v.n > 0'];
  if (!filter.includeColleagues) prefilter.push(notColleague('k.id'));
  // The shared fields (company, tags, the name staff gave) count only through mail (v.last_email_at).
  // The person's row is read by key inside each check (never joined): a join let the planner scan every
  // person of the installation for a common word's candidates.
  const person = (condition: string) => `EXISTS (SELECT 1 FROM people p WHERE p.id = k.id AND ${condition})`;
  // The prefilter as a value read by key, not an EXISTS the planner would turn into a join: planned as a
  // join from the tag's (or company's) index, the walk sorted every contact before its first row.
  const personIs = (condition: string) => `coalesce((SELECT ${condition} FROM people p WHERE p.id = k.id), false)`;
  if (filter.companyId) {
    prefilter.push(personIs(`p.company_id = $companyId AND EXISTS (SELECT 1 FROM companies co WHERE co.id = p.company_id AND ${companyShownTo('co')})`));
    conditions.push('v.last_email_at IS NOT NULL');
  }
  if (filter.tag) {
    // The tag's own candidates (its index, read in the same statement) need no second look at the tag:
    // folding a person's tags again cost 22 µs each, most of a broad tag's page.
    if (candidateSource(filter) !== 'tag') prefilter.push(personIs("p.tags <> '{}' AND crm_tag_keys(p.tags) @> ARRAY[crm_fold($tag)]"));
    conditions.push('v.last_email_at IS NOT NULL');
  }
  // A word is the caller's to find in their contacts' names and addresses, and, through mail, in the name
  // staff gave and the shown company; OR stops at the first that holds, so the person's row and company
  // are looked at only for a word the contacts do not explain.
  words.forEach((word, i) =>
    conditions.push(
      `(v.hit${i} OR (v.last_email_at IS NOT NULL AND ${person(`((p.name IS NOT NULL AND ${wordMatches('p.search_text', word)})
          OR EXISTS (SELECT 1 FROM companies co WHERE co.id = p.company_id AND ${wordMatches('co.search_text', word)} AND ${companyShownTo('co')}))`)}))`,
    ),
  );
  const hits = words.map((word, i) => `bool_or(${wordMatches('c.search_text', word)}) AS hit${i}`);
  // Only what the order and the checks need; the page's items are read afterwards (personDetailsQuery).
  const sight = `CROSS JOIN LATERAL (SELECT ${[ORDER_COLUMNS, ...hits].join(', ')} FROM ${visibleContactsOf('k.id')}) v`;
  return { sight, prefilter, conditions };
}

/** Binds a filter's values (`$companyId`, `$tag`, `$word0`...) and answers the names of the words (the rarest first, as given). */
function bindFilter(filter: PersonFilter, bind: Bind, terms: readonly string[]): string[] {
  if (filter.companyId) bind.companyId = filter.companyId;
  if (filter.tag) bind.tag = filter.tag;
  return bindWords(terms, bind);
}

/** What a filtered list's statement (personFilteredQuery) checks and answers. */
export interface FilteredQueryParts {
  /**
   * `bounded`: check the candidates up to PEOPLE_COUNT_BOUND + 1 matches and answer `total` and the
   * page's `ids` from them (whole when `total` is at most the bound); `all`: every match, ordered;
   * `none`: no match, the walk only.
   */
  match: 'bounded' | 'all' | 'none';
  /**
   * Walk this many of the caller's contacts (person-walk.ts), answering `walked` and `people`; with a
   * `bounded` match, only when more than the bound matched (NULL otherwise: never run).
   */
  walkRows?: number;
}

/**
 * The list with a search, a company or a tag: the candidates come from an index
 * (the company's people, the tag's, or the people whose contacts, name or company hold the rarest
 * word), then each is checked (personChecks), or the caller's contacts are walked in the list's order
 * with the candidates as their prefilter (ADR 0172). Answers `company_access` (the caller's sight of a
 * company filter) and what `parts` asks for: `total` and `ids` (the page's, in order, one past it),
 * `walked` and `people`.
 */
export function personFilteredQuery(filter: PersonFilter, bind: Bind, terms: readonly string[], parts: FilteredQueryParts): { sql: string } {
  // The first term drives the candidates (PersonRepository puts the rarest first).
  const words = bindFilter(filter, bind, terms);
  const checks = personChecks(filter, words);
  const ctes = candidateCtes(filter, words);
  const columns = [`${filter.companyId ? accessToCompany() : 'true'} AS company_access`];
  // What a column that only a broad (or only a narrow) match needs is wrapped in: a CASE whose
  // branch not taken is never run (its subqueries are evaluated on first use).
  let onlyWhen = (_broad: boolean, sql: string) => sql;
  if (parts.match !== 'none') {
    const bounded = parts.match === 'bounded';
    ctes.push(`matched AS MATERIALIZED (SELECT k.id, v.last_email_at, v.first_contact_id FROM candidates k ${checks.sight}
                WHERE ${[...checks.prefilter, ...checks.conditions].join(' AND ')}${bounded ? ` LIMIT ${PEOPLE_COUNT_BOUND + 1}` : ''})`);
    // A bounded match asks the cheap test first where the filter has one (boundTest): past the bound
    // it has answered, and no candidate's sight is read (the ordered match is never run).
    const test = bounded ? boundTest(filter, words, checks.prefilter) : undefined;
    if (test) ctes.push(`passed AS MATERIALIZED (${test} LIMIT ${PEOPLE_COUNT_BOUND + 1})`);
    const total = test
      ? `CASE WHEN (SELECT count(*) FROM passed) > ${PEOPLE_COUNT_BOUND} THEN ${PEOPLE_COUNT_BOUND + 1} ELSE (SELECT count(*) FROM matched) END`
      : '(SELECT count(*) FROM matched)';
    ctes.push(`total AS MATERIALIZED (SELECT ${total}::int AS n)`);
    if (bounded) onlyWhen = (broad, sql) => `CASE WHEN (SELECT n FROM total) ${broad ? '>' : '<='} ${PEOPLE_COUNT_BOUND} THEN ${sql} END`;
    columns.push(
      '(SELECT n FROM total) AS total',
      `${onlyWhen(false, 'ARRAY(SELECT m.id::text FROM matched m ORDER BY m.last_email_at DESC NULLS LAST, m.first_contact_id LIMIT $limit OFFSET $offset)')} AS ids`,
    );
  }
  // Beyond the bound the walk follows, in the same statement where the filter has a cheap bound test
  // (PersonRepository): the candidates are found once. As a statement of its own it took them again,
  // or carried 5,000 ids of a common word both ways.
  if (parts.walkRows !== undefined) {
    bind.rows = parts.walkRows;
    ctes.push(`walked AS MATERIALIZED (${walkedContacts()})`);
    columns.push(`${onlyWhen(true, '(SELECT count(*) FROM walked)::int')} AS walked`, `${onlyWhen(true, walkedPeople(checks))} AS people`);
  }
  return { sql: `WITH ${ctes.join(',\n')} SELECT ${columns.join(', ')}` };
}

/** A person's place in the list and whether the caller sees them at all, over the contacts they see (`c`). */
const ORDER_COLUMNS = `max(c.last_email_at) AS last_email_at, (array_agg(c.id ORDER BY c.last_email_at DESC NULLS LAST, c.id))[1] AS first_contact_id, count(*) AS n`;

/** Where a filtered list's candidates come from: the narrowest index the filter has (candidates). */
const candidateSource = (filter: PersonFilter): 'company' | 'tag' | 'word' => (filter.companyId ? 'company' : filter.tag ? 'tag' : 'word');

/**
 * The candidate people (a CTE `candidates`, column `id`) of a filtered list, from the narrowest index
 * the filter has: a company's people, a tag's, or for a search the people its first word (the rarest:
 * RAREST_FIRST in person-search.ts) may belong to: their contacts in the caller's readable mailboxes
 * (a CTE `hits` of their own, boundTest counts them), the name staff gave, or their company hold it.
 * Every person who matches is among them (each word must match somewhere, this one too); the other
 * words are checked per candidate. One word's lookup only: an intersection of every word's set costs
 * the sum of them, a common word's included.
 */
function candidateCtes(filter: PersonFilter, words: string[]): string[] {
  const source = candidateSource(filter);
  if (source === 'company') return ['candidates AS MATERIALIZED (SELECT p.id FROM people p WHERE p.company_id = $companyId)'];
  if (source === 'tag') return ["candidates AS MATERIALIZED (SELECT p.id FROM people p WHERE p.tags <> '{}' AND crm_tag_keys(p.tags) @> ARRAY[crm_fold($tag)])"];
  const word = words[0];
  // Each contact carries its person (migration 0083): the trigram index's rows answer them.
  return [
    `hits AS MATERIALIZED (SELECT c.person_id AS id FROM contacts c
       WHERE c.email_account_id IN (${accountsWith('readEmails')}) AND ${wordMatches('c.search_text', word)})`,
    `candidates AS MATERIALIZED (SELECT h.id FROM hits h
          UNION SELECT p.id FROM people p WHERE p.name IS NOT NULL AND ${wordMatches('p.search_text', word)}
          UNION SELECT p.id FROM companies co JOIN people p ON p.company_id = co.id WHERE ${wordMatches('co.search_text', word)})`,
  ];
}

/**
 * A cheaper test than personChecks that passes only people who match (column `id`, each once), for
 * the filters that have one; when more than the bound pass it, the total is decided without a single
 * sight. A search of one word: the people of the caller's own contacts that hold it (`hits`: such a
 * contact is seen and holds the word, which is all a match needs). A tag: the prefilter and one
 * contact of theirs with mail in a mailbox the caller reads (one index probe, where the sight
 * aggregates every contact). Others have none (hasBoundTest).
 */
function boundTest(filter: PersonFilter, words: string[], prefilter: string[]): string | undefined {
  if (!hasBoundTest(filter, words.length)) return undefined;
  if (words.length === 0) {
    const withMail = `EXISTS (SELECT 1 FROM contacts c WHERE c.person_id = k.id AND c.email_account_id = ANY (ARRAY(${accountsWith('readEmails')})) AND c.last_email_at IS NOT NULL)`;
    return `SELECT k.id FROM candidates k WHERE ${[...prefilter, withMail].join(' AND ')}`;
  }
  // A search of one word: its prefilter is the colleagues' test alone.
  return `SELECT DISTINCT k.id FROM hits k${prefilter.length > 0 ? ` WHERE ${prefilter.join(' AND ')}` : ''}`;
}

/**
 * Whether a filter with `wordCount` search words has a cheap bound test (boundTest): a tag without
 * words, or a search of one word alone, the filters that thousands of people share. Only such a filter
 * walks in its first statement (PersonRepository): the walk doubles the conditions the planner plans
 * (4.4 -> 8.7 ms of planning for a search of two words), which no narrow filter should pay for a broad
 * one's walk. A company's people are few but for the rare company of thousands: it has neither (as a
 * tag it measured 8.5-10.2 -> 11.2-12.7 ms p50, bench/people-bench.ts).
 */
export function hasBoundTest(filter: PersonFilter, wordCount: number): boolean {
  const source = candidateSource(filter);
  return (wordCount === 0 && source === 'tag') || (wordCount === 1 && source === 'word');
}
