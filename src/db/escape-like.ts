/** Search terms are literal text: a % or _ typed by an admin matches itself, not "anything". */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * The characters crm_fold (unaccent's rules) turns into a LIKE metacharacter: fullwidth, small and
 * mathematical forms of % _ \ (PostgreSQL 15's unaccent.rules; test/hardening/like-wildcards.test.ts
 * asks the running server's crm_fold for every other character of the BMP, so a newer rules file
 * that adds one fails the suite).
 */
const FOLDS_TO_LIKE_METACHARACTER: Readonly<Record<string, string>> = {
  '\u2216': '\\', // ∖ SET MINUS
  '\uFE68': '\\', // ﹨ SMALL REVERSE SOLIDUS
  '\uFE6A': '%', // ﹪ SMALL PERCENT SIGN
  '\uFF05': '%', // ％ FULLWIDTH PERCENT SIGN
  '\uFF3C': '\\', // ＼ FULLWIDTH REVERSE SOLIDUS
  '\uFF3F': '_', // ＿ FULLWIDTH LOW LINE
};
const LOOKALIKES = new RegExp(`[${Object.keys(FOLDS_TO_LIKE_METACHARACTER).join('').replace(/\\/g, '\\\\')}]`, 'gu');

/**
 * A term for `column LIKE '%' || crm_fold($term) || '%'`: the escaping must hold after the fold, so a
 * character the fold turns into % _ or \ is escaped as that metacharacter (a typed ％ matches a
 * stored % or ％, never "anything"); escaped but not yet folded, they would fold into live wildcards.
 */
export function escapeLikeBeforeFold(value: string): string {
  return escapeLike(value.replace(LOOKALIKES, (c) => FOLDS_TO_LIKE_METACHARACTER[c] ?? c));
}
