/**
 * A page of the people list from the caller's contacts walked in the list's order, merged over their
 * readable mailboxes, each contact's person checked against the filter, until the page is full (ADR
 * 0172): the unfiltered list, and a filter that matches more people than the count bound. A filter
 * thousands of people share fills a page after a few hundred contacts, where ordering every match
 * would check them all.
 *
 * Pure: the SQL text (run by PersonRepository) and the reading of its rows (unit-tested in
 * test/unit/person-walk.test.ts).
 */
import { rightCondition } from '../email-accounts/account-rights.js';

/** The walk's part of the answer of personFilteredQuery. */
export interface WalkRow {
  /** How many contacts were walked: fewer than asked when the caller has no more. */
  walked: number;
  /** The person of each walked contact that passes the filter, in the list's order. */
  people: string[];
}

/**
 * Contacts walked on the first try: (offset + limit + 1) times this, enough for one try when one
 * contact in 32 has a matching person (a filter worth a walk matches over a thousand people; a word
 * one person in twenty has took 1,300 contacts for a page of 50); four times as many on each retry,
 * up to WALK_MAX_ROWS.
 */
export const WALK_ROWS_PER_PERSON = 32;

/**
 * The same for the unfiltered list, where nearly every contact's person is on the list: a person is
 * 1.3 contacts on a typical installation (a customer in more than one mailbox), and colleagues are left out.
 */
export const UNFILTERED_ROWS_PER_PERSON = 2;

/**
 * Beyond this many contacts the walk gives up and the page is ordered from every match
 * (personFilteredQuery, every match): a deep page of a filter held by few of many contacts
 * costs the walk more than checking every candidate once.
 */
export const WALK_MAX_ROWS = 20_000;

/** How many times as many contacts each further try reads. */
const WALK_GROWTH = 4;

/**
 * The walk's contacts (a CTE `walked`): the caller's first `$rows` contacts in the list's order over
 * their readable accounts (each account's first `$rows` along contacts_account_last_email_idx, merged,
 * the first `$rows` of those: exactly the first `$rows` of all).
 */
export function walkedContacts(): string {
  return `SELECT s.id, s.person_id, s.last_email_at FROM email_account_members m
           CROSS JOIN LATERAL (SELECT c.id, c.person_id, c.last_email_at FROM contacts c WHERE c.email_account_id = m.email_account_id
                                ORDER BY c.last_email_at DESC NULLS LAST, c.id LIMIT $rows) s
           WHERE m.user_id = $userId AND ${rightCondition('readEmails')}
           ORDER BY s.last_email_at DESC NULLS LAST, s.id LIMIT $rows`;
}

/**
 * A walked person is one of the candidates: a hashed set looked up per row. As a plain IN the planner
 * made it a join driven from the candidates, whose count it takes from the index's estimate (a tag's:
 * 50 for 10,000), and read every candidate's addresses instead of the walked few.
 */
const AMONG_CANDIDATES = 'coalesce(k.id IN (SELECT id FROM candidates), false)';

/**
 * The persons of the walked contacts that pass the filter, in the list's order, one per contact (a
 * person with several addresses comes several times, at their best contact first): among the
 * filter's `candidates` (a CTE), then the checks (person-query.ts, personChecks: `prefilter` over the
 * person `k.id` alone, read before their sight `v`, then `conditions` over both). A walked contact
 * carries its person (migration 0083): no lookup by address.
 */
export function walkedPeople(checks: { sight?: string; prefilter: string[]; conditions: string[] }, among: 'candidates' | 'everyone' = 'candidates'): string {
  const where = [...(among === 'candidates' ? [AMONG_CANDIDATES] : []), ...checks.prefilter, ...checks.conditions];
  return `ARRAY(SELECT k.id::text FROM walked w
                  CROSS JOIN LATERAL (SELECT w.person_id AS id) k
                  ${checks.sight ?? ''}
                 ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
                 ORDER BY w.last_email_at DESC NULLS LAST, w.id)`;
}

/**
 * A page of a walk: the ids at [offset, offset + limit), whether more follow, and how many distinct
 * people the walk met (`seen`): more than the count bound there and the list's total needs no count.
 */
export interface PickedPage {
  ids: string[];
  hasNext: boolean;
  seen: number;
}

export type WalkedPage = PickedPage | { more: true };

/**
 * The people at [offset, offset + limit) of a walk (each person at their first contact, their best:
 * the walk goes over the caller's contacts in order), or `more` when the page and its look-ahead lie
 * beyond the contacts walked and the caller has more.
 */
export function pickWalkedPage(walk: WalkRow, askedRows: number, offset: number, limit: number): WalkedPage {
  const people: string[] = [];
  const seen = new Set<string>();
  const need = offset + limit + 1;
  for (const person of walk.people) {
    if (seen.has(person)) continue;
    seen.add(person);
    if (people.length < need) people.push(person);
  }
  if (people.length < need && walk.walked === askedRows) return { more: true };
  return { ids: people.slice(offset, offset + limit), hasNext: people.length > offset + limit, seen: seen.size };
}

/**
 * The page of a walk whose first try (`first`, of `firstRows` contacts) is in hand: further tries
 * (`walk`) read WALK_GROWTH times as many contacts while the page lies beyond, up to `maxRows`;
 * undefined when even that many leave it undecided (the caller then orders every match).
 */
export async function walkedPage(
  first: WalkRow,
  firstRows: number,
  page: { offset: number; limit: number },
  walk: (rows: number) => Promise<WalkRow>,
  maxRows = WALK_MAX_ROWS,
): Promise<PickedPage | undefined> {
  let rows = firstRows;
  let picked = pickWalkedPage(first, rows, page.offset, page.limit);
  while ('more' in picked && rows < maxRows) {
    rows = Math.min(rows * WALK_GROWTH, maxRows);
    picked = pickWalkedPage(await walk(rows), rows, page.offset, page.limit);
  }
  return 'more' in picked ? undefined : picked;
}
