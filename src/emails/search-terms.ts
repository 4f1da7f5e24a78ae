import type { Bind, Sql } from '../db/sql.js';
import { accountsWith } from '../email-accounts/account-rights.js';

/**
 * How the words of a mailbox search become SQL conditions, and what the database knows about how
 * common each word is.
 *
 * Every word matches as itself, as a prefix ("fakt" finds "faktúra") or by its Slovak stem ("faktúra"
 * finds "faktúry", migration 0065); a number as itself only (migration 0080); a phrase in quotes
 * matches its exact words in order. Against the stored search document of each email
 * (email_search.document, migrations 0030, 0065). In the GIN index a prefix term has
 * to collect every email holding a word with that prefix before anything is intersected: for a word
 * found in nearly every email of a large installation that alone is ~35 ms per million emails, even
 * when another word of the search occurs only once. So each word gets a condition of its own, and a
 * word that is not selective is never an index condition: it is tested on the rows that the selective
 * words found, or, when no word is selective, on the account's documents read in page order (a common
 * word fills a page within a few rows). Not selective: a word PostgreSQL's statistics show in a large
 * share of all emails, or a prefix shorter than SHORT_PREFIX (it matches too many different words for
 * the statistics to know).
 */

/** Words beyond this share one condition: a long pasted text does not make a statement of hundreds of them. */
export const MAX_SEARCH_TERMS = 8;

/** A word in at least this share of all emails is checked on the found rows, not looked up in the index. */
export const COMMON_WORD_SHARE = 0.02;

/** A word (folded) shorter than this is a prefix of too many words to look up in the index. */
export const SHORT_PREFIX = 3;

/**
 * At most this many emails found through the index are sorted into a page (docs/adr/0151): beyond
 * it the word is common enough that reading the account's documents in page order fills a page sooner.
 */
export const HIT_BOUND = 5000;

/**
 * The stored search document of an email (email_search, migrations 0030 and 0065, written by the
 * triggers emails_search_insert, emails_search_update and email_attachments_search): subject, sender,
 * recipients, body, the addresses' domains and the attachments' names, folded to lower case without
 * diacritics, with the words' positions and their Slovak stems. Queries name the side table `s`.
 */
export const EMAIL_SEARCH_DOCUMENT = 's.document';

/** Lexeme -> share of all emails containing it (PostgreSQL's most common elements of the search index). */
export type WordShares = ReadonlyMap<string, number>;

export interface SearchTerm {
  text: string;
  /** An exact phrase (in quotes): its words in this order, no prefixes, no other word forms. */
  phrase: boolean;
  /** false: not selective, tested on the rows found otherwise. */
  indexed: boolean;
}

/**
 * How the search's conditions are used: `index` lets the planner look the selective words up in the
 * GIN index; `filter` tests every word on rows found otherwise (the documents read in page order);
 * `found` tests only the words that are not selective, on the rows hitsSql found (the selective ones
 * hold for each of them: the index found them by those words, docs/adr/0151).
 */
export type SearchMode = 'index' | 'filter' | 'found';

/** The search's parts: "quoted phrases" and words (whitespace-separated); a quote left open is ignored. */
export function searchParts(search: string): Array<{ text: string; phrase: boolean }> {
  const quotes = (search.match(/"/g) ?? []).length;
  const text = quotes % 2 === 1 ? search.slice(0, search.lastIndexOf('"')) + search.slice(search.lastIndexOf('"') + 1) : search;
  const parts: Array<{ text: string; phrase: boolean }> = [];
  for (const m of text.matchAll(/"([^"]*)"|([^\s"]+)/g)) {
    if (m[1] !== undefined) {
      if (m[1].trim()) parts.push({ text: m[1].trim(), phrase: true });
    } else parts.push({ text: m[2], phrase: false });
  }
  return parts;
}

/** The search's terms (the database's parser splits each further), at most MAX_SEARCH_TERMS. */
export function searchTerms(search: string, shares: WordShares): SearchTerm[] {
  const parts = searchParts(search);
  const kept =
    parts.length > MAX_SEARCH_TERMS
      ? [
          ...parts.slice(0, MAX_SEARCH_TERMS - 1),
          {
            text: parts
              .slice(MAX_SEARCH_TERMS - 1)
              .map((p) => p.text)
              .join(' '),
            phrase: false,
          },
        ]
      : parts;
  return kept.map(({ text, phrase }) => ({ text, phrase, indexed: phrase ? phraseSelective(text, shares) : wordSelective(text, shares) }));
}

function wordSelective(text: string, shares: WordShares): boolean {
  return foldWord(text).length >= SHORT_PREFIX && shareOf(text, shares) < COMMON_WORD_SHARE;
}

/** A phrase is looked up in the index when one of its words (exact, no prefix) is not common. */
function phraseSelective(text: string, shares: WordShares): boolean {
  return foldWord(text)
    .split(/[^\p{L}\p{N}]+/u)
    .some((w) => w.length >= SHORT_PREFIX && (shares.get(w) ?? 0) < COMMON_WORD_SHARE);
}

/**
 * The share of emails with a word starting with `text` (a prefix term matches all of them), as far as
 * the statistics know; a number matches only itself (crm_search_tsquery, migration 0080).
 */
function shareOf(text: string, shares: WordShares): number {
  const prefix = foldWord(text);
  if (/^[0-9]+$/.test(prefix)) return shares.get(prefix) ?? 0;
  let share = 0;
  for (const [lexeme, s] of shares) if (lexeme.startsWith(prefix)) share += s;
  return Math.min(share, 1);
}

/** The tsquery of a term: a word with its prefix and stem (crm_search_tsquery), or an exact phrase (crm_search_phrase); migration 0065. */
function termQuery(term: SearchTerm, param: string): string {
  return term.phrase ? `crm_search_phrase($${param})` : `crm_search_tsquery($${param})`;
}

/**
 * The conditions on the search document. crm_search_tsquery (migrations 0011, 0018, 0065) folds the
 * text and runs each word through the documents' own parser (an address or a URL stays one token),
 * quotes every lexeme (user input is never tsquery syntax) and asks for the word, the word as a prefix
 * and its Slovak stem; crm_search_phrase asks for the phrase's words next to each other. Both are
 * immutable, so the planner evaluates them and estimates the actual words. A text without any word
 * finds nothing, a part without a word (a lone dash) is no condition: both checks fold to constants
 * when the statement is planned. `IS TRUE` keeps a word's test out of the index scan.
 */
export function searchConditions(search: string, shares: WordShares, bind: Bind, mode: SearchMode = 'index'): string[] {
  bind.search = search;
  const conditions = ['crm_search_tsquery($search) IS NOT NULL'];
  searchTerms(search, shares).forEach((term, i) => {
    bind[`search${i}`] = term.text;
    if (term.indexed && mode === 'found') return;
    const query = termQuery(term, `search${i}`);
    const match = `${EMAIL_SEARCH_DOCUMENT} @@ ${query}`;
    conditions.push(`(${query} IS NULL OR ${term.indexed && mode === 'index' ? match : `(${match}) IS TRUE`})`);
  });
  return conditions;
}

/**
 * The documents the selective terms find through the GIN index alone (no order, so the planner has
 * no reason to walk a date index), or null when no term is selective. The repository counts them up
 * first (hitProbeSql); when there are few, a page is cut from them (docs/adr/0151).
 * The rows carry the document only when a term is left to test on it (searchConditions, `found`):
 * 10,000 documents of a word in 1 % of a million emails, materialised, spilled 8 MB to disk and
 * tripled the count's time.
 */
export function hitsSql(search: string, shares: WordShares, bind: Bind): string | null {
  const terms = searchTerms(search, shares);
  if (!terms.some((t) => t.indexed)) return null;
  bind.search = search;
  const conditions = ['crm_search_tsquery($search) IS NOT NULL'];
  terms.forEach((term, i) => {
    bind[`search${i}`] = term.text;
    if (term.indexed) conditions.push(`${EMAIL_SEARCH_DOCUMENT} @@ ${termQuery(term, `search${i}`)}`);
  });
  return `SELECT s.email_id, s.email_account_id, s.date, ${hitsDocument(terms)} AS document FROM email_search s WHERE ${conditions.join(' AND ')}`;
}

/** The hits' document: only when a term is left to test on it (searchConditions, `found`). */
const hitsDocument = (terms: readonly SearchTerm[]): string => (terms.every((t) => t.indexed) ? 'NULL::tsvector' : 's.document');

/**
 * The probe of a search (docs/adr/0151, amended): how many documents of the caller's readable
 * mailboxes (bind `$userId`) the selective terms find, up to `bound` + 1 (`n`), and when they are at
 * most HIT_BOUND, their ids (`ids`), so that the page is cut from them without a second lookup in the
 * index. Null when no term is selective. The repository asks up to COUNT_BOUND where `n` is also the
 * list's total (every term selective, no other filter), else up to HIT_BOUND.
 */
export function hitProbeSql(search: string, shares: WordShares, bound: number): { sql: string; bind: Bind } | null {
  const bind: Bind = {};
  const hits = hitsSql(search, shares, bind);
  if (!hits) return null;
  // The accounts a plain filter (IS TRUE): as an index condition the planner ANDs the GIN bitmap with
  // the accounts' whole date index (seconds at a million emails, as for the walk's total).
  const found = `${hits} AND (s.email_account_id IN (${accountsWith('readEmails')})) IS TRUE LIMIT ${bound + 1}`;
  return {
    sql: `WITH found AS MATERIALIZED (${found})
          SELECT c.n, CASE WHEN c.n <= ${HIT_BOUND} THEN ARRAY(SELECT f.email_id::text FROM found f) END AS ids
            FROM (SELECT count(*)::int AS n FROM found) c`,
    bind,
  };
}

/**
 * The hits of a probe as the page and the total read them: the documents of `$hitIds` by key (with
 * the document only when a term is left to test on it, as hitsSql).
 */
export function hitsByIdSql(search: string, shares: WordShares): string {
  return `SELECT s.email_id, s.email_account_id, s.date, ${hitsDocument(searchTerms(search, shares))} AS document FROM email_search s WHERE s.email_id = ANY($hitIds::uuid[])`;
}

/**
 * The statistics' most common words of the search index, read at most every few minutes (ANALYZE
 * changes them slowly). Without statistics (a new installation) every word is looked up in the index.
 */
export class SearchWordStatistics {
  /** The read under way or done (one read however many searches ask at once), and until when it holds. */
  private cached: { shares: Promise<WordShares>; until: number } | null = null;

  constructor(
    private readonly sql: Sql,
    private readonly ttlMs = 5 * 60_000,
    private readonly now = () => Date.now(),
  ) {}

  shares(): Promise<WordShares> {
    if (this.cached && this.cached.until > this.now()) return this.cached.shares;
    const shares = this.read();
    const cached = { shares, until: this.now() + this.ttlMs };
    this.cached = cached;
    // A failed read is not kept: the next search asks again.
    shares.catch(() => {
      if (this.cached === cached) this.cached = null;
    });
    return shares;
  }

  private async read(): Promise<WordShares> {
    const row = await this.sql.one<{ lexemes: string[] | null; shares: number[] | null }>(
      `SELECT most_common_elems::text::text[] AS lexemes, most_common_elem_freqs::float8[] AS shares
         FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'email_search' AND attname = 'document'`,
    );
    const shares = new Map<string, number>();
    row?.lexemes?.forEach((lexeme, i) => shares.set(lexeme, row.shares?.[i] ?? 0));
    return shares;
  }
}

/** The word as the index stores it: lower case, diacritics removed (what crm_fold does for Slovak). */
export function foldWord(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}
