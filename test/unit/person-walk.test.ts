import { expect } from 'chai';
import { pickWalkedPage } from '../../src/people/person-walk.js';

/** The page of a walk over the caller's contacts in the list's order (src/people/person-walk.ts). */
describe('unit: the people page from a walk of the contacts', () => {
  it('puts each person at their first contact, once', () => {
    const walk = { walked: 8, people: ['p', 'q', 'p', 'r', 'q', 's'] };
    expect(pickWalkedPage(walk, 10, 0, 2)).to.deep.equal({ ids: ['p', 'q'], hasNext: true });
    expect(pickWalkedPage(walk, 10, 2, 2)).to.deep.equal({ ids: ['r', 's'], hasNext: false });
  });

  it('asks for more while the page or its look-ahead lies beyond the contacts walked', () => {
    // Ten contacts asked, ten walked: the caller may have more, and the next person may be among them.
    expect(pickWalkedPage({ walked: 10, people: ['p', 'q'] }, 10, 0, 2)).to.deep.equal({ more: true });
    expect(pickWalkedPage({ walked: 10, people: ['p', 'p', 'q'] }, 10, 1, 2)).to.deep.equal({ more: true });
  });

  it('ends the list when the walk ran out of contacts', () => {
    expect(pickWalkedPage({ walked: 7, people: ['p', 'q'] }, 10, 0, 2)).to.deep.equal({ ids: ['p', 'q'], hasNext: false });
    expect(pickWalkedPage({ walked: 7, people: ['p'] }, 10, 4, 2)).to.deep.equal({ ids: [], hasNext: false });
  });
});
