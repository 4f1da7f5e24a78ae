import type { Bind, Sql } from '../db/sql.js';

/**
 * How the words of a mailbox search become SQL conditions, and what the database knows about how
 * common each word is.
 *
 * Every word matches as itself or as a prefix ("fakt" finds "faktúra"), against the stored search
 * document of each email (email_search.document, migration 0030). In the GIN index a prefix term has
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
 * The stored search document of an email (email_search, migration 0030, written by the triggers
 * emails_search_insert and emails_search_update, functions crm_email_search_insert/_update): subject, sender, recipients
 * and body, folded to lower case without diacritics (crm_email_search_vector of migration 0018),
 * without positions. Queries name the side table `s`.
 */
export const EMAIL_SEARCH_DOCUMENT = 's.document';

/** Lexeme -> share of all emails containing it (PostgreSQL's most common elements of the search index). */
export type WordShares = ReadonlyMap<string, number>;

export interface SearchTerm {
  text: string;
  /** false: not selective, tested on the rows found otherwise. */
  indexed: boolean;
}

/** The search's words (whitespace-separated; the database's parser splits each further), at most MAX_SEARCH_TERMS. */
export function searchTerms(search: string, shares: WordShares): SearchTerm[] {
  const words = search.split(/\s+/).filter(Boolean);
  const texts = words.length > MAX_SEARCH_TERMS ? [...words.slice(0, MAX_SEARCH_TERMS - 1), words.slice(MAX_SEARCH_TERMS - 1).join(' ')] : words;
  return texts.map((text) => ({ text, indexed: foldWord(text).length >= SHORT_PREFIX && shareOf(text, shares) < COMMON_WORD_SHARE }));
}

/** The share of emails with a word starting with `text` (a prefix term matches all of them), as far as the statistics know. */
function shareOf(text: string, shares: WordShares): number {
  const prefix = foldWord(text);
  let share = 0;
  for (const [lexeme, s] of shares) if (lexeme.startsWith(prefix)) share += s;
  return Math.min(share, 1);
}

/**
 * The conditions on the search document. crm_search_tsquery (migrations 0011, 0018) folds the text and runs each word through
 * the documents' own parser (an address or a URL stays one token) and quotes every lexeme: user
 * input is never tsquery syntax. It is immutable, so the planner evaluates it and estimates the
 * actual words. A text without any word finds nothing, a part without a word (a lone dash) is no
 * condition: both checks fold to constants when the statement is planned. `IS TRUE` keeps a common
 * word's test out of the index scan.
 */
export function searchConditions(search: string, shares: WordShares, bind: Bind): string[] {
  bind.search = search;
  const conditions = ['crm_search_tsquery($search) IS NOT NULL'];
  searchTerms(search, shares).forEach((term, i) => {
    bind[`search${i}`] = term.text;
    const match = `${EMAIL_SEARCH_DOCUMENT} @@ crm_search_tsquery($search${i})`;
    conditions.push(`(crm_search_tsquery($search${i}) IS NULL OR ${term.indexed ? match : `(${match}) IS TRUE`})`);
  });
  return conditions;
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
