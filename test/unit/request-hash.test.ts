import { expect } from 'chai';
import { requestHash } from '../../src/sending/request-hash.js';

describe('unit: the hash of a send request (Idempotency-Key)', () => {
  const files = [
    { name: 'faktura.pdf', sha256: 'a'.repeat(64) },
    { name: 'výkaz.xlsx', sha256: 'b'.repeat(64) },
  ];

  it('does not depend on the order of JSON keys, at any depth', () => {
    const one = requestHash({ to: ['jana@firma.sk'], subject: 'Faktúra', meta: { a: 1, b: [{ y: 2, x: 1 }] } }, files);
    const two = requestHash({ meta: { b: [{ x: 1, y: 2 }], a: 1 }, subject: 'Faktúra', to: ['jana@firma.sk'] }, files);
    expect(one).to.match(/^[0-9a-f]{64}$/);
    expect(two).to.equal(one);
  });

  it('changes with any field, the order of recipients or files, a file name or a file content', () => {
    const base = requestHash({ to: ['a@x.sk', 'b@x.sk'], subject: 'S' }, files);
    expect(requestHash({ to: ['b@x.sk', 'a@x.sk'], subject: 'S' }, files)).not.to.equal(base);
    expect(requestHash({ to: ['a@x.sk', 'b@x.sk'], subject: 'S ' }, files)).not.to.equal(base);
    expect(requestHash({ to: ['a@x.sk', 'b@x.sk'], subject: 'S' }, [...files].reverse())).not.to.equal(base);
    expect(requestHash({ to: ['a@x.sk', 'b@x.sk'], subject: 'S' }, [{ ...files[0], name: 'ine.pdf' }, files[1]])).not.to.equal(base);
    expect(requestHash({ to: ['a@x.sk', 'b@x.sk'], subject: 'S' }, [{ ...files[0], sha256: 'c'.repeat(64) }, files[1]])).not.to.equal(base);
    expect(requestHash({ to: ['a@x.sk', 'b@x.sk'], subject: 'S' }, [])).not.to.equal(base);
  });
});
