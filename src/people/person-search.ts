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

/** At most this many words of a search count (the rest would only narrow an already narrow list). */
const MAX_SEARCH_WORDS = 8;

/**
 * The search's words as bind parameters (`$word0`, ...), accents and letter case aside as the stored
 * texts are folded; answers the parameter names, the longest word first (it drives the index lookup:
 * trigrams of a longer word find fewer rows).
 */
export function searchWords(search: string, bind: Bind): string[] {
  const words = search
    .split(/\s+/)
    .filter((w) => w !== '')
    .slice(0, MAX_SEARCH_WORDS)
    .sort((a, b) => b.length - a.length);
  return words.map((word, i) => {
    bind[`word${i}`] = escapeLikeBeforeFold(word);
    return `word${i}`;
  });
}

/**
 * The stored text `column` holds the word of parameter `param`: a LIKE over the folded text, which
 * the trigram index of each of those columns serves for a word of three letters or more.
 */
export const wordMatches = (column: string, param: string): string => `${column} LIKE '%' || crm_fold($${param}) || '%'`;
