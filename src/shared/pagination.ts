/** docs/contract.md §8: page from 1, limit default 50, at most 100. The one page type of every list. */
export interface PageRequest {
  page: number;
  limit: number;
}

/** One page of a list and the total of all pages, as services return it. */
export interface Page<T> {
  items: T[];
  total: number;
  /** False when the count stopped at COUNT_BOUND (total is then the bound, not the size of the list). */
  totalExact?: boolean;
  /** Whether a row follows this page: from one row fetched past it (exact beyond COUNT_BOUND too). */
  hasNext?: boolean;
}

/**
 * Lists that grow with a mailbox (emails, contacts) count at most this many rows, so a page costs
 * the same in a mailbox of 50,000 as of 500. Beyond it the answer says total = the bound and
 * totalExact = false; paging goes on with `page` as before.
 */
export const COUNT_BOUND = 10_000;

/** A count made with COUNT_BOUND + 1 as its limit, as the API answers it. */
export function boundedTotal(counted: number): { total: number; totalExact: boolean } {
  return counted > COUNT_BOUND ? { total: COUNT_BOUND, totalExact: false } : { total: counted, totalExact: true };
}

export const offsetOf = (page: PageRequest): number => (page.page - 1) * page.limit;

/**
 * A page query fetches one row more than the page (`limit` + 1; `window`, for per-account ranges
 * merged later, the rows up to and including it): whether that row came is `hasNext`, exact however
 * long the list is, where a bounded total could not say (cutPage).
 */
export function lookAheadBind(page: PageRequest): { limit: number; offset: number; window: number } {
  const offset = offsetOf(page);
  return { limit: page.limit + 1, offset, window: offset + page.limit + 1 };
}

/** The page's rows of a lookAheadBind() query, and whether a row follows them. */
export function cutPage<T>(rows: T[], page: PageRequest): { rows: T[]; hasNext: boolean } {
  return { rows: rows.slice(0, page.limit), hasNext: rows.length > page.limit };
}

/**
 * The list shape of the API and the CLI's --json output: data.items + data.pagination. `hasNext`
 * comes from the page query when it looked ahead (bounded lists); an exact total answers it otherwise.
 */
export function listResult<T>(items: T[], { page, limit }: { page: number; limit: number }, count: number | ListCount) {
  const { total, totalExact = true, hasNext } = typeof count === 'number' ? { total: count } : count;
  return { items, pagination: { page, limit, total, totalExact, hasNext: hasNext ?? page * limit < total } };
}

/** How many rows a list has: exact, or bounded (COUNT_BOUND) with the page query's look-ahead saying whether more follow. */
interface ListCount {
  total: number;
  totalExact?: boolean;
  hasNext?: boolean;
}
