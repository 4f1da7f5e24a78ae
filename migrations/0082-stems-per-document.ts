import type { QueryInterface } from 'sequelize';
import { replaceable, replacedOnce, withPinnedSearchPath } from '../src/db/migration-sql.js';
import { DOCUMENT } from './0065-slovak-search.js';
import { STEM_RULE, STRIP_RULES } from './0081-stemmer-in-plpgsql.js';

/**
 * A document's stems in one call (issue 49: the documents' write cost; docs/adr/0151).
 *
 * After migration 0081 a document still called crm_sk_stem once per word: a function with a pinned
 * search_path (as every function of the schema) saves and restores that setting on each call, 7 µs a
 * word, 127 ms per 1,000 emails of the bench's mail. crm_sk_changed_stems takes the document's words at
 * once and applies the same rules (STRIP_RULES, STEM_RULE: one source with crm_sk_strip and crm_sk_stem)
 * in one loop: 51 ms. crm_email_search_document and crm_search_names call it; their answers are the
 * same (test/search/word-forms.test.ts compares them with migration 0065's, text by text).
 *
 * Only functions change: no stored document is rewritten.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await withPinnedSearchPath(qi, (path) => `${CHANGED_STEMS(path)} ${documentWithChangedStems(path)}`);
}

export async function down(qi: QueryInterface): Promise<void> {
  await withPinnedSearchPath(qi, (path) => `${replaceable(DOCUMENT(path))} DROP FUNCTION crm_sk_changed_stems(text[]);`);
}

/** The stems of `words` that differ from their word, in the words' order (crm_sk_stem of each, in one call). */
const CHANGED_STEMS = (path: string) => String.raw`
  CREATE FUNCTION crm_sk_changed_stems(words text[]) RETURNS text[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = ${path} AS $$
  DECLARE
    w text;
    stem text;
    stems text[] := '{}';
  BEGIN
    FOREACH w IN ARRAY coalesce(words, '{}') LOOP
      stem := ${STEM_RULE(STRIP_RULES)};
      IF stem <> w THEN stems := stems || stem; END IF;
    END LOOP;
    RETURN stems;
  END $$;`;

/**
 * 0065's stems, one crm_sk_stem call per word (in crm_search_names with DISTINCT: array_to_tsvector
 * drops repeated lexemes either way), and what replaces each.
 */
const PER_WORD_STEMS: Array<[string, string]> = [
  [
    'array_to_tsvector(ARRAY(SELECT DISTINCT s FROM (SELECT l, crm_sk_stem(l) AS s FROM unnest(tsvector_to_array(v)) l) x WHERE s <> l))',
    'array_to_tsvector(crm_sk_changed_stems(tsvector_to_array(v)))',
  ],
  [
    'array_to_tsvector(ARRAY(SELECT s FROM (SELECT l, crm_sk_stem(l) AS s FROM unnest(tsvector_to_array(words)) l) x WHERE s <> l))',
    'array_to_tsvector(crm_sk_changed_stems(tsvector_to_array(words)))',
  ],
];

/**
 * Migration 0065's crm_search_names and crm_email_search_document, each with its stems taken from
 * crm_sk_changed_stems and nothing else changed. Derived from 0065's text rather than restated, so the
 * one difference is this list; a stems expression not found there stops the migration.
 */
function documentWithChangedStems(path: string): string {
  let sql = replaceable(DOCUMENT(path));
  for (const [perWord, perDocument] of PER_WORD_STEMS) sql = replacedOnce(sql, perWord, perDocument, '0082');
  return sql;
}
