/**
 * The validation every entry point shares (src/shared/validation.ts) and the Slovak messages zod
 * gives for checks a schema did not word itself (src/shared/zod-slovak.ts).
 */
import { expect } from 'chai';
import { z } from 'zod';
import { ValidationError } from '../../src/errors/app-errors.js';
import { COUNT_BOUND, boundedTotal, listResult, offsetOf } from '../../src/shared/pagination.js';
import { idParams, issueDetails, looseBoolean, paginationQuery, parse } from '../../src/shared/validation.js';
import { slovakMessage, unknownFieldMessage } from '../../src/shared/zod-slovak.js';
import { MAX_YEAR, MIN_YEAR } from '../../src/timesheets/period.js';
import { MONTH_PATTERN, YEAR_PATTERN, monthField, yearField } from '../../src/timesheets/timesheet-schemas.js';

/** The message zod (with the Slovak map installed) gives for `value` against `schema`. */
function messageOf(schema: z.ZodType, value: unknown): string {
  const result = schema.safeParse(value);
  expect(result.success, `expected ${JSON.stringify(value)} to be refused`).to.equal(false);
  return result.error!.issues[0].message;
}

function problemsOf(schema: z.ZodType, value: unknown): unknown {
  try {
    parse(schema, value);
  } catch (err) {
    expect(err).to.be.instanceOf(ValidationError);
    return (err as ValidationError).details;
  }
  return expect.fail('expected a ValidationError');
}

describe('unit: validation', () => {
  it('parse answers the parsed value, or one ValidationError (400) with every field problem', () => {
    const schema = z.strictObject({ a: z.string(), b: z.number() });
    expect(parse(schema, { a: 'x', b: 1 })).to.deep.equal({ a: 'x', b: 1 });
    let error: ValidationError | undefined;
    try {
      parse(schema, { b: 'two' }, 'Neplatný kontakt');
    } catch (err) {
      error = err as ValidationError;
    }
    expect(error).to.be.instanceOf(ValidationError);
    expect(error!.message).to.equal('Neplatný kontakt');
    expect(error!.statusCode).to.equal(400);
    expect(error!.code).to.equal('validation_failed');
    expect(error!.details).to.deep.equal([
      { field: 'a', message: 'Hodnota je povinná' },
      { field: 'b', message: 'Očakáva sa číslo, prišlo: text' },
    ]);
  });

  it('names every unknown field by itself, nested fields by their path, the whole body as null', () => {
    const schema = z.strictObject({ inner: z.strictObject({ ok: z.boolean().optional() }) });
    expect(problemsOf(schema, { inner: { ok: true, typo: 1 }, extra: 2, more: 3 })).to.deep.equal([
      { field: 'inner.typo', message: 'Neznáme pole: typo' },
      { field: 'extra', message: 'Neznáme pole: extra' },
      { field: 'more', message: 'Neznáme pole: more' },
    ]);
    expect(problemsOf(schema, [])).to.deep.equal([{ field: null, message: 'Očakáva sa objekt JSON, prišlo: zoznam' }]);
    expect(issueDetails([])).to.deep.equal([]);
  });

  it('reads a yes/no from JSON or a form field, and refuses anything else with the given message', () => {
    const flag = looseBoolean('rememberMe musí byť áno/nie');
    for (const yes of [true, 'true', 1]) expect(flag.parse(yes), String(yes)).to.equal(true);
    for (const no of [false, 'false', 0]) expect(flag.parse(no), String(no)).to.equal(false);
    for (const bad of ['yes', 'TRUE', 2, '1', null, '']) expect(messageOf(flag, bad), String(bad)).to.equal('rememberMe musí byť áno/nie');
  });

  it('route ids must be UUIDs, in Slovak', () => {
    expect(idParams.parse({ id: '7f1c1b9e-3c9a-4a53-9d2b-0a4f7a1b2c3d' }).id).to.equal('7f1c1b9e-3c9a-4a53-9d2b-0a4f7a1b2c3d');
    expect(messageOf(idParams, { id: '1; DROP TABLE users' })).to.equal('Neplatný identifikátor');
  });

  it('pages from 1, limit 50 by default, at most 100: beyond is a 400, not a silent clamp', () => {
    expect(paginationQuery.parse({})).to.deep.equal({ page: 1, limit: 50 });
    expect(paginationQuery.parse({ page: '3', limit: '100' })).to.deep.equal({ page: 3, limit: 100 });
    expect(messageOf(paginationQuery, { limit: '101' })).to.equal('Hodnota môže byť najviac 100');
    expect(messageOf(paginationQuery, { page: '0' })).to.equal('Hodnota musí byť aspoň 1');
    expect(messageOf(paginationQuery, { page: '1.5' })).to.equal('Očakáva sa celé číslo, prišlo: číslo');
    expect(messageOf(paginationQuery, { page: 'abc' })).to.equal('Očakáva sa číslo, prišlo: neplatné číslo');
    expect(messageOf(paginationQuery, { pgae: '2' })).to.equal('Neznáme pole: pgae');
  });

  it('computes the row offset of a page and the list shape of every answer', () => {
    expect(offsetOf({ page: 1, limit: 50 })).to.equal(0);
    expect(offsetOf({ page: 3, limit: 20 })).to.equal(40);
    expect(listResult(['a'], { page: 2, limit: 10 }, 11)).to.deep.equal({ items: ['a'], pagination: { page: 2, limit: 10, total: 11, totalExact: true, hasNext: false } });
    expect(listResult([], { page: 1, limit: 50 }, { total: COUNT_BOUND, totalExact: false }).pagination).to.deep.equal({
      page: 1,
      limit: 50,
      total: COUNT_BOUND,
      totalExact: false,
      hasNext: true,
    });
    // A count made with the bound + 1 as its limit: exact up to the bound, the bound and "not exact" past it.
    expect(boundedTotal(COUNT_BOUND)).to.deep.equal({ total: COUNT_BOUND, totalExact: true });
    expect(boundedTotal(COUNT_BOUND + 1)).to.deep.equal({ total: COUNT_BOUND, totalExact: false });
    expect(boundedTotal(0)).to.deep.equal({ total: 0, totalExact: true });
  });
});

describe('unit: Slovak zod messages', () => {
  it('says what type was expected and what came, with Slovak type names', () => {
    expect(messageOf(z.string(), 5)).to.equal('Očakáva sa text, prišlo: číslo');
    expect(messageOf(z.number(), 'x')).to.equal('Očakáva sa číslo, prišlo: text');
    expect(messageOf(z.boolean(), null)).to.equal('Očakáva sa true alebo false, prišlo: null');
    expect(messageOf(z.array(z.string()), {})).to.equal('Očakáva sa zoznam, prišlo: objekt JSON');
    expect(messageOf(z.string(), undefined)).to.equal('Hodnota je povinná');
  });

  it('counts characters and items with the Slovak plural: 1 znak, 2-4 znaky, 5 znakov', () => {
    expect(messageOf(z.string().max(1), 'ab')).to.equal('Najviac 1 znak');
    expect(messageOf(z.string().max(3), 'abcd')).to.equal('Najviac 3 znaky');
    expect(messageOf(z.string().max(5), 'abcdef')).to.equal('Najviac 5 znakov');
    expect(messageOf(z.string().min(4), 'ab')).to.equal('Aspoň 4 znaky');
    expect(messageOf(z.array(z.number()).min(2), [1])).to.equal('Aspoň 2 položky');
    expect(messageOf(z.array(z.number()).max(0), [1])).to.equal('Najviac 0 položiek');
  });

  it('an empty required text says it must not be empty', () => {
    expect(messageOf(z.string().min(1), '')).to.equal('Hodnota nesmie byť prázdna');
  });

  it('numbers: inclusive and exclusive bounds, multiples', () => {
    expect(messageOf(z.number().max(10), 11)).to.equal('Hodnota môže byť najviac 10');
    expect(messageOf(z.number().lt(10), 10)).to.equal('Hodnota musí byť menšia ako 10');
    expect(messageOf(z.number().min(1), 0)).to.equal('Hodnota musí byť aspoň 1');
    expect(messageOf(z.number().gt(0), 0)).to.equal('Hodnota musí byť väčšia ako 0');
    expect(messageOf(z.number().multipleOf(5), 7)).to.equal('Hodnota musí byť násobkom 5');
  });

  it('formats, enums and literals', () => {
    expect(messageOf(z.email(), 'ana')).to.equal('Neplatná emailová adresa');
    expect(messageOf(z.uuid(), 'x')).to.equal('Neplatný identifikátor (UUID)');
    expect(messageOf(z.iso.date(), '2024-13-40')).to.equal('Očakáva sa dátum v tvare RRRR-MM-DD');
    expect(messageOf(z.enum(['owner', 'editor']), 'boss')).to.equal('Povolené hodnoty: owner, editor');
    expect(messageOf(z.literal(true), false)).to.equal('Očakáva sa hodnota true');
  });

  it('never answers in English, whatever the check', () => {
    const english = /\b(expected|received|invalid|must|string|number|too)\b/i;
    const samples: Array<[z.ZodType, unknown]> = [
      [z.string(), 1],
      [z.string().max(1), 'ab'],
      [z.number().int(), 1.5],
      [z.date(), 'x'],
      [z.date().min(new Date(1000)), new Date(0)],
      [z.strictObject({}), { a: 1 }],
      [z.record(z.string().min(2), z.number()), { a: 1 }],
      [z.union([z.string(), z.number()]), null],
      [z.bigint(), 1],
      [z.set(z.string()).max(0), new Set(['a'])],
    ];
    for (const [schema, value] of samples) expect(messageOf(schema, value)).to.not.match(english);
  });

  it('names several unknown keys together, one unknown key by itself', () => {
    expect(unknownFieldMessage('x')).to.equal('Neznáme pole: x');
    expect(slovakMessage({ code: 'unrecognized_keys', keys: ['a', 'b'], input: {}, path: [] } as never)).to.equal('Neznáme polia: a, b');
  });
});

describe('unit: timesheet periods, pattern and bounds agree (issue 34)', () => {
  it('the documented pattern accepts exactly the years and months the service accepts', () => {
    for (let n = 0; n <= 3000; n++) {
      for (const text of [String(n), `0${n}`, ` ${n} `]) {
        expect(YEAR_PATTERN.test(text), `year ${text}`).to.equal(n >= MIN_YEAR && n <= MAX_YEAR);
        expect(yearField.safeParse(text).success, `year field ${text}`).to.equal(n >= MIN_YEAR && n <= MAX_YEAR);
        expect(MONTH_PATTERN.test(text), `month ${text}`).to.equal(n >= 1 && n <= 12);
        expect(monthField.safeParse(text).success, `month field ${text}`).to.equal(n >= 1 && n <= 12);
      }
    }
    for (const text of ['', '1e3', '2026.0', '+2026', '-1', '20 26', '0x7e6']) {
      expect(yearField.safeParse(text).success, text).to.equal(false);
      expect(monthField.safeParse(text).success, text).to.equal(false);
    }
  });
});
