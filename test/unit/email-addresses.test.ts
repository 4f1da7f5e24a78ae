import { expect } from 'chai';
import { addressListsOf, splitDisplayList } from '../../src/emails/email-addresses.js';
import type { EmailRecord } from '../../src/emails/email-records.js';

describe('unit: address lists of an email', () => {
  it('splits a display list into names and addresses, names with commas and quotes included', () => {
    expect(splitDisplayList('Jana Nováková <jana@firma.sk>, peter@firma.sk,  "Kováč, Ján" <jan@x.sk>')).to.deep.equal([
      { name: 'Jana Nováková', email: 'jana@firma.sk' },
      { name: null, email: 'peter@firma.sk' },
      { name: 'Kováč, Ján', email: 'jan@x.sk' },
    ]);
  });

  it('answers nothing for no text, and stops at what is not an address instead of looping', () => {
    expect(splitDisplayList(null)).to.deep.equal([]);
    expect(splitDisplayList('')).to.deep.equal([]);
    expect(splitDisplayList('undisclosed-recipients:;')).to.deep.equal([]);
    expect(splitDisplayList('<jana@firma.sk>')).to.deep.equal([{ name: null, email: 'jana@firma.sk' }]);
    expect(splitDisplayList('"Jana \\"JN\\" N." <jana@firma.sk>')).to.deep.equal([{ name: 'Jana "JN" N.', email: 'jana@firma.sk' }]);
  });

  it('prefers the lists the sync stored; older rows fall back to their display strings', () => {
    const stored = { from: [{ name: 'Jana', email: 'jana@firma.sk' }], to: [{ name: null, email: 'a@b.sk' }] };
    expect(addressListsOf({ addresses: stored, from: 'ignored <x@y.sk>', to: null } as unknown as EmailRecord)).to.deep.equal({ ...stored, cc: [], replyTo: [] });
    expect(addressListsOf({ addresses: null, from: 'Jana <jana@firma.sk>', to: 'a@b.sk, c@d.sk' } as unknown as EmailRecord)).to.deep.equal({
      from: [{ name: 'Jana', email: 'jana@firma.sk' }],
      to: [
        { name: null, email: 'a@b.sk' },
        { name: null, email: 'c@d.sk' },
      ],
      cc: [],
      replyTo: [],
    });
  });
});
