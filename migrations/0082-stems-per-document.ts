import type { QueryInterface, Transaction } from 'sequelize';
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
  await run(qi, (path) => `${CHANGED_STEMS(path)} ${DOCUMENT_WITH_CHANGED_STEMS(path)}`);
}

export async function down(qi: QueryInterface): Promise<void> {
  await run(qi, (path) => `${DOCUMENT(path).replaceAll('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION')} DROP FUNCTION crm_sk_changed_stems(text[]);`);
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

/** Migration 0065's document functions, their stems taken from crm_sk_changed_stems. */
const DOCUMENT_WITH_CHANGED_STEMS = (path: string) => String.raw`
  CREATE OR REPLACE FUNCTION crm_search_names(names text) RETURNS tsvector LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = ${path} AS $$
  DECLARE
    folded text := crm_fold(names);
    v tsvector;
  BEGIN
    IF folded IS NULL OR folded = '' THEN RETURN ''::tsvector; END IF;
    v := to_tsvector('simple'::regconfig, folded) || to_tsvector('simple'::regconfig, regexp_replace(folded, '[^[:alnum:]]+', ' ', 'g'));
    RETURN strip(v || array_to_tsvector(crm_sk_changed_stems(tsvector_to_array(v))));
  END $$;

  CREATE OR REPLACE FUNCTION crm_email_search_document(subject text, body text, sender text, recipients text, addresses jsonb, names text) RETURNS tsvector
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = ${path} AS $$
  DECLARE
    cc text := CASE WHEN jsonb_typeof(addresses->'cc') = 'array'
                    THEN (SELECT string_agg(a->>'email', ' ') FROM jsonb_array_elements(addresses->'cc') a) END;
    words tsvector := to_tsvector('simple'::regconfig, crm_fold(concat_ws(' ', subject, sender, recipients, cc, left(body, 100000))));
    stems tsvector := array_to_tsvector(crm_sk_changed_stems(tsvector_to_array(words)));
    hosts tsvector := array_to_tsvector(ARRAY(
      SELECT DISTINCT array_to_string(labels[i:], '.')
        FROM (SELECT string_to_array(m[1], '.') AS labels
                FROM regexp_matches(crm_fold(concat_ws(' ', sender, recipients, cc)), '@([a-z0-9-]+(?:\.[a-z0-9-]+)+)', 'g') m) h
        CROSS JOIN LATERAL generate_series(1, cardinality(labels) - 1) i));
  BEGIN
    RETURN words || stems || hosts || crm_search_names(names);
  END $$;`;

async function run(qi: QueryInterface, statements: (path: string) => string): Promise<void> {
  await qi.sequelize.transaction(async (transaction) => {
    const path = `${quoteIdent(await scalar(qi, 'SELECT current_schema() AS value', transaction))}, pg_temp`;
    await qi.sequelize.query(statements(path), { transaction });
  });
}

async function scalar(qi: QueryInterface, sql: string, transaction: Transaction): Promise<string> {
  const [rows] = await qi.sequelize.query(sql, { transaction });
  return (rows as Array<{ value: string }>)[0].value;
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
