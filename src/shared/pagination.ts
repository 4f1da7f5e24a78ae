/** docs/contract.md §8: page from 1, limit default 50, at most 100. The one page type of every list. */
export interface PageRequest {
  page: number;
  limit: number;
}

/** One page of a list and the total of all pages, as services return it. */
export interface Page<T> {
  items: T[];
  total: number;
}

export const offsetOf = (page: PageRequest): number => (page.page - 1) * page.limit;

/** The list shape of the API and the CLI's --json output: data.items + data.pagination. */
export function listResult<T>(items: T[], page: number, limit: number, total: number) {
  return { items, pagination: { page, limit, total } };
}
