import { expect } from 'chai';
import { compareContacts, pickPage, type WindowRow } from '../../src/people/person-page.js';

const at = (day: number | null) => (day === null ? null : new Date(Date.UTC(2026, 0, day)));
/** A contact of `person` in `account`, its newest mail on `day` (null: none), with an id that orders as given. */
const row = (account: string, person: string, day: number | null, id: string): WindowRow => ({ email_account_id: account, person_id: person, last_email_at: at(day), contact_id: id });

/** The unfiltered people page from per-account windows of the caller's contacts (src/people/person-page.ts). */
describe('unit: the people page from per-account windows', () => {
  it('orders contacts newest first, those without mail last, then by id', () => {
    const rows = [row('a', 'p', null, '2'), row('a', 'q', 3, '9'), row('a', 'r', 5, '5'), row('a', 's', 3, '1'), row('a', 't', null, '0')];
    expect([...rows].sort(compareContacts).map((r) => r.person_id)).to.deep.equal(['r', 's', 'q', 't', 'p']);
  });

  it('puts a person where their first contact stands, once, over every account', () => {
    const rows = [row('a', 'p', 9, '1'), row('a', 'q', 7, '2'), row('b', 'q', 8, '3'), row('b', 'r', 6, '4'), row('b', 'p', 2, '5')];
    expect(pickPage(rows, 10, 0, 10)).to.deep.equal({ ids: ['p', 'q', 'r'], hasNext: false });
    expect(pickPage(rows, 10, 1, 1)).to.deep.equal({ ids: ['q'], hasNext: true });
    expect(pickPage(rows, 10, 3, 1)).to.deep.equal({ ids: [], hasNext: false });
  });

  it('trusts a full window only up to its last contact, and asks for wider windows when the page lies beyond', () => {
    // Account a's window is full (2 rows) and ends on day 5; b's contact of day 4 may be preceded by a's
    // unseen contacts of day 5 to 4: p and q are certain, r is not.
    const rows = [row('a', 'p', 9, '1'), row('a', 'q', 5, '2'), row('b', 'r', 4, '3')];
    expect(pickPage(rows, 2, 0, 1)).to.deep.equal({ ids: ['p'], hasNext: true });
    expect(pickPage(rows, 2, 0, 2)).to.deep.equal({ widen: true });
    // Not full: the account has no more contacts, everything is certain.
    expect(pickPage(rows, 3, 0, 5)).to.deep.equal({ ids: ['p', 'q', 'r'], hasNext: false });
  });

  it('widens when one person with several addresses fills a window', () => {
    const rows = [row('a', 'p', 9, '1'), row('a', 'p', 8, '2'), row('a', 'p', 7, '3')];
    expect(pickPage(rows, 3, 0, 1)).to.deep.equal({ widen: true });
    expect(pickPage([...rows, row('a', 'q', 6, '4')], 4, 0, 1)).to.deep.equal({ ids: ['p'], hasNext: true });
  });
});
