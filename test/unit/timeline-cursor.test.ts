import { expect } from 'chai';
import { ValidationError } from '../../src/errors/app-errors.js';
import { comesAfter, decodeCursor, encodeCursor, type TimelinePosition } from '../../src/timelines/timeline-cursor.js';

const at = (s: string) => `2026-10-05T09:00:${s}Z`;

describe('unit: the timeline cursor (src/timelines/timeline-cursor.ts)', () => {
  it('round-trips a position, microseconds included', () => {
    const p: TimelinePosition = { at: at('00.123456'), rank: 2, id: '0192f0a1-7b3c-7def-8123-456789abcdef' };
    expect(decodeCursor(encodeCursor(p))).to.deep.equal(p);
  });

  it('refuses whatever a client could make up, with the Slovak 400', () => {
    const id = '0192f0a1-7b3c-7def-8123-456789abcdef';
    const made = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const text of [
      'nie',
      made({}),
      made([at('00.123456'), 0]),
      made([at('00.123'), 0, id]),
      made(['2026-13-45T09:00:00.000000Z', 0, id]),
      made([at('00.123456'), 3, id]),
      made([at('00.123456'), '0', id]),
      made([at('00.123456'), 0, id.toUpperCase()]),
      made([at("00.123456' OR 1=1"), 0, id]),
    ]) {
      expect(() => decodeCursor(text), text).to.throw(ValidationError, 'Neplatný kurzor');
    }
  });

  it('orders as the query does: newer first, then emails before follow-ups before tasks, then the lower id', () => {
    const a = '00000000-0000-4000-8000-000000000001';
    const b = '00000000-0000-4000-8000-00000000000a';
    expect(comesAfter({ at: at('00.000001'), rank: 0, id: a }, { at: at('00.000002'), rank: 2, id: b })).to.equal(true);
    expect(comesAfter({ at: at('00.000002'), rank: 1, id: a }, { at: at('00.000002'), rank: 0, id: b })).to.equal(true);
    expect(comesAfter({ at: at('00.000002'), rank: 0, id: b }, { at: at('00.000002'), rank: 0, id: a })).to.equal(true);
    expect(comesAfter({ at: at('00.000002'), rank: 0, id: a }, { at: at('00.000002'), rank: 0, id: a })).to.equal(false);
  });
});
