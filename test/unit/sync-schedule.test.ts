/**
 * The arithmetic of the polling schedule (src/sync/sync-schedule.ts): every account's turn is its own
 * phase within the interval, turns are spread evenly. That new mail really shows up within the
 * interval plus a tick is tested end to end in test/sync/freshness.test.ts.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { nextSlotMs, phaseMs, tickMs } from '../../src/sync/sync-schedule.js';

describe('unit: sync schedule', () => {
  it('gives an account the same phase every time, within the interval', () => {
    const id = randomUUID();
    expect(phaseMs(id, 30_000)).to.equal(phaseMs(id, 30_000));
    for (let i = 0; i < 100; i++) {
      const phase = phaseMs(randomUUID(), 30_000);
      expect(phase).to.be.at.least(0).and.below(30_000);
    }
  });

  it('spreads 2,000 accounts over the interval: no second of it gets a crowd', () => {
    const perSecond = new Array<number>(30).fill(0);
    for (let i = 0; i < 2000; i++) perSecond[Math.floor(phaseMs(randomUUID(), 30_000) / 1000)]++;
    // About 67 per second; a thundering herd (everyone at :00) would put all 2,000 into one.
    expect(Math.max(...perSecond)).to.be.below(130);
    expect(Math.min(...perSecond)).to.be.above(20);
  });

  it("puts the next turn strictly after now, at most one interval away, on the account's phase", () => {
    const interval = 30_000;
    for (const now of [0, 1, 29_999, 30_000, 1_700_000_000_123]) {
      for (const phase of [0, 1, 12_345, 29_999]) {
        const next = nextSlotMs(now, phase, interval);
        expect(next)
          .to.be.above(now)
          .and.at.most(now + interval);
        expect((((next - phase) % interval) + interval) % interval).to.equal(0);
      }
    }
  });

  it('ticks often enough for short intervals and never more than every second', () => {
    expect(tickMs(2000)).to.equal(1000);
    expect(tickMs(30_000)).to.equal(5000);
    expect(tickMs(3_600_000)).to.equal(5000);
  });
});
