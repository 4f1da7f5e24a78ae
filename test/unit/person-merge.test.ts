import { expect } from 'chai';
import { mergeFields } from '../../src/people/person-merge.js';
import type { PersonFields } from '../../src/people/person-records.js';

const person = (fields: Partial<PersonFields>): PersonFields => ({ id: 'x', name: null, phone: null, title: null, tags: [], notes: null, companyId: null, ...fields });

/** What a merge keeps of the shared fields (src/people/person-merge.ts): nothing anyone wrote is lost. */
describe('unit: merging the fields of people', () => {
  it("keeps the target's values and fills the rest from the sources in order", () => {
    const merged = mergeFields(person({ name: 'Ľubomír Šebo', phone: null }), [person({ name: 'Lubo', phone: '+421 1', title: 'Konateľ' }), person({ phone: '+421 2', companyId: 'c' })]);
    expect(merged).to.include({ name: 'Ľubomír Šebo', phone: '+421 1', title: 'Konateľ', companyId: 'c' });
  });

  it('joins tags once each, accents and letter case aside (the first spelling wins)', () => {
    const merged = mergeFields(person({ tags: ['zákazník', 'Žilina'] }), [person({ tags: ['ZAKAZNIK', 'VIP'] }), person({ tags: ['zilina', 'vip', 'nový'] })]);
    expect(merged.tags).to.deep.equal(['zákazník', 'Žilina', 'VIP', 'nový']);
  });

  it('keeps every distinct note, the target first, one below the other', () => {
    const merged = mergeFields(person({ notes: 'Firemné' }), [person({ notes: '  Súkromné ' }), person({ notes: 'Firemné' }), person({ notes: null })]);
    expect(merged.notes).to.equal('Firemné\n\nSúkromné');
    expect(mergeFields(person({}), [person({})]).notes).to.equal(null);
  });
});
