import { expect } from 'chai';
import { BurstLog } from '../../src/http/burst-log.js';

describe('BurstLog: a recurring failure said once per burst', () => {
  it('logs the first occurrence, stays silent while they keep coming within the quiet time, and counts them for the next burst', () => {
    const burst = new BurstLog(10_000);
    expect(burst.occur(0)).to.deep.equal({ log: true, suppressedBefore: 0 });
    // Each occurrence within 10 s of the previous one extends the burst, even past 10 s from its start.
    for (const t of [1_000, 9_000, 18_000]) expect(burst.occur(t)).to.deep.equal({ log: false, suppressedBefore: 0 });
    expect(burst.occur(28_001)).to.deep.equal({ log: true, suppressedBefore: 3 });
    expect(burst.occur(40_000)).to.deep.equal({ log: true, suppressedBefore: 0 });
  });
});
