import { expect } from 'chai';
import { RateLimitError } from '../../src/errors/app-errors.js';
import { ConcurrencyGate } from '../../src/shared/concurrency-gate.js';

describe('unit: ConcurrencyGate', () => {
  it('bounds per key and in all; a place given back twice counts once', () => {
    const gate = new ConcurrencyGate({ perKey: 2, total: 3 }, 'plno');
    const a1 = gate.enter('a');
    gate.enter('a');
    expect(() => gate.enter('a')).to.throw(RateLimitError);
    const b1 = gate.enter('b');
    expect(() => gate.enter('c')).to.throw(RateLimitError);
    b1();
    b1();
    expect(gate.inUse).to.equal(2);
    gate.enter('c');
    expect(() => gate.enter('d')).to.throw(RateLimitError);
    a1();
    gate.enter('a');
    expect(gate.inUse).to.equal(3);
  });

  it('refuses with the Slovak message and the Retry-After it was given', () => {
    const gate = new ConcurrencyGate({ perKey: 1, total: 10 }, 'Príliš veľa súbežných sťahovaní', 7);
    gate.enter('u');
    try {
      gate.enter('u');
      expect.fail('a second place for the same key');
    } catch (err) {
      expect(err).to.be.instanceOf(RateLimitError);
      expect((err as RateLimitError).message).to.equal('Príliš veľa súbežných sťahovaní');
      expect((err as RateLimitError).statusCode).to.equal(429);
      expect((err as RateLimitError).headers).to.deep.equal({ 'Retry-After': '7' });
    }
  });

  it('enterWithin waits for a place given back, and answers none when nothing comes back in time', async () => {
    const gate = new ConcurrencyGate({ perKey: 1, total: 10 }, 'plno');
    const held = gate.enter('u');
    const waiting = gate.enterWithin('u', 5_000);
    // Another key is not held up by it.
    gate.enter('v')();
    held();
    const place = await waiting;
    expect(place).to.be.a('function');
    expect(gate.inUse).to.equal(1);
    // Now the place is taken again and nobody gives it back: none within 20 ms, nothing taken.
    expect(await gate.enterWithin('u', 20)).to.equal(undefined);
    expect(gate.inUse).to.equal(1);
    place!();
    expect(gate.inUse).to.equal(0);
  });
});
