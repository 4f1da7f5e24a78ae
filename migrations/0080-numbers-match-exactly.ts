import type { QueryInterface } from 'sequelize';
import { withPinnedSearchPath } from '../src/db/migration-sql.js';

/**
 * A number in a mailbox search matches exactly, no longer as a prefix (issue 49; docs/adr/0151).
 *
 * crm_search_tsquery (migration 0065) asked for every word as itself, as a prefix and by its stem. For
 * a number the prefix is a lexeme range of the GIN index that holds most documents ("2026:*": every
 * year, date and reference starting so; "118:*": 118, 1180-1189, 11800...), read again by each of
 * the three statements of a request: "faktúra-2026-118" took 124 ms at a million emails, and found 168
 * emails where one was meant. A number now asks for itself (and its unsigned form when the parser
 * read it signed, "-118" in "faktúra-2026-118"); words keep their prefix and stem. A quoted phrase was
 * exact already. A token of letters and digits ("fa2026118", "v1.5") is a word and keeps its prefix.
 *
 * Only the function changes: stored documents stay as they are, no lock on a table.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await withPinnedSearchPath(qi, QUERY_EXACT_NUMBERS);
}

export async function down(qi: QueryInterface): Promise<void> {
  await withPinnedSearchPath(qi, QUERY_0065);
}

const QUERY_EXACT_NUMBERS = (path: string) => String.raw`
  -- Each word of the search (folded, parsed as the documents are): itself, as a prefix, and its stem;
  -- a number (digits, signed or not) itself only, signed and unsigned.
  CREATE OR REPLACE FUNCTION crm_search_tsquery(search text) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = ${path} AS $$
      SELECT to_tsquery('simple'::regconfig, (
        SELECT string_agg(CASE
                 WHEN t.lexeme ~ '^[0-9]+$' THEN format('(%s)', crm_tsquery_quote(t.lexeme))
                 WHEN t.lexeme ~ '^-[0-9]+$' THEN format('(%s | %s)', crm_tsquery_quote(t.lexeme), crm_tsquery_quote(ltrim(t.lexeme, '-')))
                 ELSE format('(%1$s | %1$s:*%2$s%3$s)', crm_tsquery_quote(t.lexeme),
                             CASE WHEN crm_sk_stem(t.lexeme) <> t.lexeme THEN ' | ' || crm_tsquery_quote(crm_sk_stem(t.lexeme)) ELSE '' END,
                             CASE WHEN t.lexeme ~ '^-[0-9]' THEN format(' | %1$s | %1$s:*', crm_tsquery_quote(ltrim(t.lexeme, '-'))) ELSE '' END)
               END, ' & ')
          FROM unnest(to_tsvector('simple'::regconfig, crm_fold(search))) t))
    $$;
`;

/**
 * Migration 0065's definition, restored by down(). Restated here: 0065 creates it together with
 * crm_search_phrase in one text, which down() must leave alone.
 */
const QUERY_0065 = (path: string) => String.raw`
  CREATE OR REPLACE FUNCTION crm_search_tsquery(search text) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = ${path} AS $$
      SELECT to_tsquery('simple'::regconfig, (
        SELECT string_agg(format('(%1$s | %1$s:*%2$s%3$s)', crm_tsquery_quote(t.lexeme),
                                 CASE WHEN crm_sk_stem(t.lexeme) <> t.lexeme THEN ' | ' || crm_tsquery_quote(crm_sk_stem(t.lexeme)) ELSE '' END,
                                 CASE WHEN t.lexeme ~ '^-[0-9]' THEN format(' | %1$s | %1$s:*', crm_tsquery_quote(ltrim(t.lexeme, '-'))) ELSE '' END), ' & ')
          FROM unnest(to_tsvector('simple'::regconfig, crm_fold(search))) t))
    $$;
`;
