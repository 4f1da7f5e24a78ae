import { expect } from 'chai';
import fs from 'node:fs';
import { ERROR_CODES } from '../../src/errors/error-codes.js';

/**
 * docs/contract.md §7: a code is never renamed or removed silently (frontends branch on it). The
 * committed list docs/error-codes.json is the promise: a code that disappears or changes status fails
 * here; a new code fails until it is added to the list (one line, reviewed with the change). A rename
 * or removal needs the list edited too, and a **BREAKING** note in the changelog.
 */
describe('unit: error codes against the committed list (issue 34)', () => {
  const committed = JSON.parse(fs.readFileSync(new URL('../../docs/error-codes.json', import.meta.url), 'utf8')) as Record<string, number>;
  const current = Object.fromEntries(Object.entries(ERROR_CODES).map(([code, { status }]) => [code, status]));

  it('no committed code is gone or answered with another status', () => {
    const changed = Object.entries(committed).filter(([code, status]) => current[code] !== status);
    expect(changed, 'renamed, removed or re-statused codes (a BREAKING change)').to.deep.equal([]);
  });

  it('every code of the service is in the committed list', () => {
    expect(Object.keys(current).filter((code) => !(code in committed))).to.deep.equal([]);
  });
});
