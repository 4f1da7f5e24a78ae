import { expect } from 'chai';
import { hasBoundTest } from '../../src/people/person-query.js';
import { pickWalkedPage, walkedPage } from '../../src/people/person-walk.js';

/** The page of a walk over the caller's contacts in the list's order (src/people/person-walk.ts). */
describe('unit: the people page from a walk of the contacts', () => {
  it('puts each person at their first contact, once', () => {
    const walk = { walked: 8, people: ['p', 'q', 'p', 'r', 'q', 's'] };
    // Each answer also tells how many people the walk met: all four, whichever page was asked.
    expect(pickWalkedPage(walk, 10, 0, 2)).to.deep.equal({ ids: ['p', 'q'], hasNext: true, seen: 4 });
    expect(pickWalkedPage(walk, 10, 2, 2)).to.deep.equal({ ids: ['r', 's'], hasNext: false, seen: 4 });
  });

  it('asks for more while the page or its look-ahead lies beyond the contacts walked', () => {
    // Ten contacts asked, ten walked: the caller may have more, and the next person may be among them.
    expect(pickWalkedPage({ walked: 10, people: ['p', 'q'] }, 10, 0, 2)).to.deep.equal({ more: true });
    expect(pickWalkedPage({ walked: 10, people: ['p', 'p', 'q'] }, 10, 1, 2)).to.deep.equal({ more: true });
  });

  it('ends the list when the walk ran out of contacts', () => {
    expect(pickWalkedPage({ walked: 7, people: ['p', 'q'] }, 10, 0, 2)).to.deep.equal({ ids: ['p', 'q'], hasNext: false, seen: 2 });
    expect(pickWalkedPage({ walked: 7, people: ['p'] }, 10, 4, 2)).to.deep.equal({ ids: [], hasNext: false, seen: 1 });
  });
});

/** The tries of a walk (walkedPage), against an in-memory list of the persons of the caller's contacts in order. */
describe('unit: the tries of a people walk', () => {
  // 100 contacts; the persons of those that match: every tenth from the 60th on (p60, p70, p80, p90).
  const contacts = Array.from({ length: 100 }, (_, i) => (i >= 60 && i % 10 === 0 ? `p${i}` : undefined));
  const walkOf = (rows: number) => {
    const walked = contacts.slice(0, rows);
    return { walked: walked.length, people: walked.filter((p): p is string => p !== undefined) };
  };

  it('reads four times as many contacts per try until the page is decided', async () => {
    const asked: number[] = [];
    const page = await walkedPage(walkOf(10), 10, { offset: 0, limit: 2 }, async (rows) => (asked.push(rows), walkOf(rows)));
    expect(page).to.deep.equal({ ids: ['p60', 'p70'], hasNext: true, seen: 4 });
    expect(asked).to.deep.equal([40, 160]);
  });

  it('gives up past the most it may read, for the caller to order every match', async () => {
    const asked: number[] = [];
    const page = await walkedPage(walkOf(10), 10, { offset: 0, limit: 2 }, async (rows) => (asked.push(rows), walkOf(rows)), 50);
    expect(page).to.equal(undefined);
    expect(asked).to.deep.equal([40, 50]);
  });
});

/** Which filters decide the count bound cheaply and walk in their first statement (src/people/person-query.ts). */
describe('unit: the people filters with a cheap bound test', () => {
  it('a tag alone and a search of one word have one; a company, several words or a tag with a word do not', () => {
    const base = { includeColleagues: false };
    expect(hasBoundTest({ ...base, tag: 'vip' }, 0)).to.equal(true);
    expect(hasBoundTest({ ...base, search: 'kovac' }, 1)).to.equal(true);
    expect(hasBoundTest({ ...base, search: 'jan kovac' }, 2)).to.equal(false);
    expect(hasBoundTest({ ...base, companyId: 'c' }, 0)).to.equal(false);
    expect(hasBoundTest({ ...base, companyId: 'c', tag: 'vip' }, 0)).to.equal(false);
    expect(hasBoundTest({ ...base, tag: 'vip', search: 'kovac' }, 1)).to.equal(false);
  });
});
