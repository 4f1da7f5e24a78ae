/**
 * The unfiltered people list's page from per-account windows of the caller's contacts
 * (person-query.ts, personWindowsQuery): pure, unit-tested in test/unit/person-page.test.ts.
 *
 * Each account's window is its first `window` contacts in the list's order (last_email_at DESC NULLS
 * LAST, then id). Merged, a person stands at their first contact. That is exact up to the horizon:
 * the last contact of the full window that comes first in that order (every contact up to it is in
 * some window; a person first seen later may have a better contact beyond a window). A person with
 * several addresses in one account can use up a window, so a page the horizon cuts short asks for
 * wider windows (`widen`).
 */
export interface WindowRow {
  person_id: string;
  last_email_at: Date | null;
  contact_id: string;
  email_account_id: string;
}

/** The list's order of two contacts: negative when `a` comes first. */
export function compareContacts(a: Pick<WindowRow, 'last_email_at' | 'contact_id'>, b: Pick<WindowRow, 'last_email_at' | 'contact_id'>): number {
  const at = a.last_email_at?.getTime();
  const bt = b.last_email_at?.getTime();
  if (at !== bt) {
    if (at === undefined) return 1;
    if (bt === undefined) return -1;
    return bt - at;
  }
  // PostgreSQL orders uuids by their bytes: the lower-case hex text orders the same.
  return a.contact_id < b.contact_id ? -1 : a.contact_id > b.contact_id ? 1 : 0;
}

export type PickedPage = { ids: string[]; hasNext: boolean } | { widen: true };

/** The ids of the people at [offset, offset + limit) and whether one follows, or `widen` when the windows were too narrow to tell. */
export function pickPage(rows: readonly WindowRow[], window: number, offset: number, limit: number): PickedPage {
  const perAccount = new Map<string, WindowRow[]>();
  for (const row of rows) {
    const list = perAccount.get(row.email_account_id) ?? [];
    list.push(row);
    perAccount.set(row.email_account_id, list);
  }
  let horizon: WindowRow | undefined;
  for (const list of perAccount.values()) {
    if (list.length < window) continue;
    const last = list.reduce((worst, r) => (compareContacts(r, worst) > 0 ? r : worst));
    if (!horizon || compareContacts(last, horizon) < 0) horizon = last;
  }
  const merged = [...rows].sort(compareContacts);
  const people: string[] = [];
  const seen = new Set<string>();
  const need = offset + limit + 1;
  for (const row of merged) {
    if (horizon && compareContacts(row, horizon) > 0) break;
    if (seen.has(row.person_id)) continue;
    seen.add(row.person_id);
    people.push(row.person_id);
    if (people.length === need) break;
  }
  // Short of the page and its look-ahead while some window was full: the rest lies beyond a horizon.
  if (people.length < need && horizon) return { widen: true };
  return { ids: people.slice(offset, offset + limit), hasNext: people.length > offset + limit };
}
