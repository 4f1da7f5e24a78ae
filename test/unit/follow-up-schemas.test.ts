/**
 * The follow-up request schemas (src/follow-ups/follow-up-schemas.ts): what a PUT body and the list
 * query accept, and the Slovak message of each refusal.
 */
import { expect } from 'chai';
import type { z } from 'zod';
import { listFollowUpsQuery, putFollowUpBody } from '../../src/follow-ups/follow-up-schemas.js';

const DUE = 'dueAt musí byť dátum a čas v ISO 8601 s časovou zónou (napr. 2026-05-04T09:00:00+02:00)';

function messages(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  expect(result.success, `expected ${JSON.stringify(value)} to be refused`).to.equal(false);
  return result.error!.issues.map((i) => i.message);
}

describe('unit: follow-up schemas', () => {
  it('PUT: dueAt with an offset becomes the instant; the note is trimmed, blank or null is none, absent stays absent', () => {
    expect(putFollowUpBody.parse({ dueAt: '2026-05-04T09:00:00+02:00', note: '  Zavolať  ' })).to.deep.equal({ dueAt: new Date('2026-05-04T07:00:00Z'), note: 'Zavolať' });
    expect(putFollowUpBody.parse({ dueAt: '2026-05-04T07:00:00Z', note: '   ' }).note).to.equal(null);
    expect(putFollowUpBody.parse({ dueAt: '2026-05-04T07:00:00.123Z', note: null }).note).to.equal(null);
    expect(putFollowUpBody.parse({ dueAt: '2026-05-04T07:00:00Z' })).to.not.have.property('note');
  });

  it('PUT: a missing, date-only, offset-less, impossible or non-text dueAt is refused with one message', () => {
    for (const dueAt of [undefined, '2026-05-04', '2026-05-04T09:00:00', '2026-02-30T09:00:00Z', 'zajtra', 1_900_000_000_000, null]) {
      expect(messages(putFollowUpBody, { dueAt }), String(dueAt)).to.deep.equal([DUE]);
    }
    expect(messages(putFollowUpBody, { dueAt: '1999-12-31T23:59:59Z' })).to.deep.equal(['dueAt musí byť medzi rokmi 2000 a 2099']);
    expect(messages(putFollowUpBody, { dueAt: '2100-01-01T00:00:00Z' })).to.deep.equal(['dueAt musí byť medzi rokmi 2000 a 2099']);
    expect(putFollowUpBody.safeParse({ dueAt: '2099-12-31T23:59:59Z' }).success).to.equal(true);
  });

  it('PUT: a note of 2000 characters is accepted, 2001 and non-text are refused; unknown fields too', () => {
    expect(putFollowUpBody.safeParse({ dueAt: '2026-05-04T07:00:00Z', note: 'a'.repeat(2000) }).success).to.equal(true);
    expect(messages(putFollowUpBody, { dueAt: '2026-05-04T07:00:00Z', note: 'a'.repeat(2001) })).to.deep.equal(['Poznámka môže mať najviac 2000 znakov']);
    expect(messages(putFollowUpBody, { dueAt: '2026-05-04T07:00:00Z', note: 7 })).to.deep.equal(['Poznámka musí byť text']);
    expect(messages(putFollowUpBody, { dueAt: '2026-05-04T07:00:00Z', remind: true })).to.deep.equal(['Neznáme pole: remind']);
  });

  it('list: status defaults to all; other values are refused', () => {
    expect(listFollowUpsQuery.parse({})).to.deep.equal({ page: 1, limit: 50, status: 'all' });
    expect(listFollowUpsQuery.parse({ status: 'due', page: '2', limit: '10' })).to.deep.equal({ page: 2, limit: 10, status: 'due' });
    expect(messages(listFollowUpsQuery, { status: 'overdue' })).to.deep.equal(['status musí byť due, upcoming alebo all']);
  });
});
