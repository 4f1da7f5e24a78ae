import type { QueryInterface } from 'sequelize';
import { withPinnedSearchPath } from '../src/db/migration-sql.js';

/**
 * The Slovak stemmer (crm_sk_strip, crm_sk_stem; migration 0065) as PL/pgSQL functions, the same rules
 * word for word (issue 49: the documents' write cost; docs/adr/0151).
 *
 * A document asks for the stem of each of its words. As SQL functions with a pinned search_path (every
 * function of the schema has one, test/db/schema.test.ts) the planner cannot inline them, and each call
 * ran the SQL function executor: 25 µs a word, 450 ms of stems per 1,000 emails of the bench's mail,
 * four times the rest of the document. PL/pgSQL evaluates the same expressions with its cached plans:
 * 127 ms. Same answers: compared word by word over the 20,042 distinct words of 20,000 emails before
 * this was written, and by test/search/word-forms.test.ts against migration 0065's definitions.
 *
 * Only the functions change: no stored document, search text or index changes (their values are the same).
 */
export async function up(qi: QueryInterface): Promise<void> {
  await withPinnedSearchPath(qi, (path) => stemmerFunctions(path, 'plpgsql'));
}

export async function down(qi: QueryInterface): Promise<void> {
  await withPinnedSearchPath(qi, (path) => stemmerFunctions(path, 'sql'));
}

/** The ending rules of migration 0065, one expression over `w` (also migration 0082's, over a document's words). */
export const STRIP_RULES = String.raw`CASE
      WHEN length(w) < 4 OR w !~ '^[a-z]+$' THEN w
      WHEN length(w) >= 7 AND right(w, 4) IN ('iami', 'iach', 'ovia') THEN left(w, -4)
      WHEN length(w) >= 6 AND right(w, 3) IN ('ami', 'ach', 'iam', 'ich', 'ych', 'ymi', 'imi', 'eho', 'emu', 'ovi', 'och', 'iou') THEN left(w, -3)
      WHEN length(w) >= 5 AND right(w, 2) IN ('ou', 'om', 'ov', 'ej', 'ym', 'im', 'am', 'mi', 'ia', 'ie', 'iu', 'ii') THEN left(w, -2)
      WHEN right(w, 1) IN ('a', 'e', 'i', 'o', 'u', 'y') THEN left(w, -1)
      ELSE w END`;

/** The mobile vowel out of the stripped word `stripped` (paliet -> palt), migration 0065's expression. */
export const STEM_RULE = (stripped: string) => String.raw`regexp_replace(${stripped}, '^([a-z]+[^aeiouy])(ie|e|o)([^aeiouy])$', '\1\3')`;

/** The two functions in `language`. */
function stemmerFunctions(path: string, language: 'plpgsql' | 'sql'): string {
  const head = (name: string, arg: string) =>
    `CREATE OR REPLACE FUNCTION ${name}(${arg} text) RETURNS text LANGUAGE ${language} IMMUTABLE PARALLEL SAFE SET search_path = ${path} AS $$`;
  const body = (expression: string) => (language === 'plpgsql' ? `BEGIN RETURN ${expression}; END $$;` : `SELECT ${expression} $$;`);
  return `${head('crm_sk_strip', 'w')} ${body(STRIP_RULES)}
          ${head('crm_sk_stem', 'word')} ${body(STEM_RULE('crm_sk_strip(word)'))}`;
}
