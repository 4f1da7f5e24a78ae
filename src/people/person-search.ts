/**
 * THE place where a people search meets stored text (issue 46): which words a search has, and whether
 * one word matches one stored search text. The stored texts are the folded documents of the database:
 * contacts.search_text (crm_contact_search_text: a contact's name and address, migration 0025),
 * companies.search_text (crm_company_search_text: name and domain, 0027) and people.search_text
 * (crm_person_search_text: the name staff gave, 0050). A change of how a word matches (Slovak word
 * forms, say) changes wordMatches and those functions, and the people list follows.
 */
import { escapeLikeBeforeFold } from '../db/escape-like.js';
import type { Bind } from '../db/sql.js';
import { wordOrStemLike } from '../contacts/contact-query.js';

/** At most this many words of a search count (the rest would only narrow an already narrow list). */
const MAX_SEARCH_WORDS = 8;

/**
 * The search's words, each escaped for LIKE (accents and letter case are left to crm_fold, as the
 * stored texts are folded), each once, at most MAX_SEARCH_WORDS, the longest first.
 */
export function searchTerms(search: string): string[] {
  const words = [...new Set(search.split(/\s+/).filter((w) => w !== ''))].slice(0, MAX_SEARCH_WORDS).sort((a, b) => b.length - a.length);
  return words.map(escapeLikeBeforeFold);
}

/** The terms as bind parameters `$word0`, `$word1`, ... in their order; answers the parameter names. */
export function bindWords(terms: readonly string[], bind: Bind): string[] {
  return terms.map((term, i) => {
    bind[`word${i}`] = term;
    return `word${i}`;
  });
}

/**
 * The index of each term in ascending order of how many contacts hold it (counted up to 200 through
 * contacts_search_trgm_idx, over every mailbox: an estimate, not anyone's answer): the rarest one drives
 * the lookup of a search's candidates (person-query.ts).
 */
export const RAREST_FIRST = `SELECT (w.i - 1)::int AS i FROM unnest($terms::text[]) WITH ORDINALITY AS w(term, i)
  ORDER BY (SELECT count(*) FROM (SELECT 1 FROM contacts c WHERE ${wordMatchesExpression('c.search_text', 'w.term')} LIMIT 200) x), w.i`;

/**
 * The stored text `column` holds the word of parameter `param`, or the word without its Slovak case
 * ending ("Šebovi" finds "Šebo"): the contacts' rule (wordOrStemLike), LIKEs over the folded text that
 * the trigram index of each of those columns serves for a word of three letters or more.
 */
export const wordMatches = (column: string, param: string): string => wordMatchesExpression(column, `$${param}`);

function wordMatchesExpression(column: string, term: string): string {
  return wordOrStemLike(column, term);
}
