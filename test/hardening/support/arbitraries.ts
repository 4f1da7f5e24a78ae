import crypto from 'node:crypto';
import fc from 'fast-check';

/**
 * Hostile input, built for a JSON/HTTP API: strings that break naive code (NUL, lone surrogates,
 * bidi overrides, SQL and path fragments), values of the wrong type, huge and deep structures,
 * prototype-pollution keys, broken JSON texts, odd query strings and odd headers.
 */

const NASTY_STRINGS = [
  '',
  ' ',
  '   ',
  '\t',
  '\r\n',
  '\u0000',
  'a\u0000b',
  '\u0000'.repeat(16),
  '\uFEFF',
  '\u202Efdp.exe',
  '\u200B',
  '\uD800',
  '\uDFFF\uD800',
  '𝕏𝕐ℤ',
  'Výkaz č. 5 – ľščťžýáíé',
  'e\u0301',
  '🙂'.repeat(30),
  '\u{10FFFF}',
  'ﷺ',
  "' OR '1'='1",
  "'; DROP TABLE users; --",
  '" OR ""="',
  '\\',
  '\\x00',
  '%00',
  '%',
  '%zz',
  '%E0%A4%A',
  '../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '/etc/passwd',
  'C:\\x',
  'file:///etc/passwd',
  '${7*7}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '<!--',
  ']]>',
  '$where',
  '{"$gt":""}',
  'null',
  'undefined',
  'true',
  'false',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e309',
  '-0',
  '0x1F',
  '0b1',
  '1_000',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  'admin',
  'member',
  'root',
  '2024-02-30',
  '2024-13-01',
  '9999-12-31T23:59:59Z',
  '0000-01-01',
  '2024-05-01T25:00:00Z',
  '2024-05-01T08:00:00+99:00',
];

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 300 }) },
  // Long: beyond every max length the schemas set, but inside the 100 kB body limit.
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('x', 'ž', '🙂', '\u0000', ' '), fc.integer({ min: 255, max: 20_000 })).map(([c, n]) => c.repeat(n)) },
);

const numbers: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -0, -1, 1, 2, 12, 13, 100, 101, 2000, 2100, 2101, 1.5, -1.5, 2 ** 31, 2 ** 53 + 2, -(2 ** 63), 1e308, Number.MIN_VALUE),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** A JSON value of any type, scalars weighted towards the ones that break things. */
export const nastyValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 5, arbitrary: nastyString },
    { weight: 3, arbitrary: numbers },
    { weight: 2, arbitrary: fc.constantFrom(true, false, null) },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.dictionary(nastyKey(), tie('value'), { maxKeys: 4 }) },
  ),
})).value;

export function nastyKey(): fc.Arbitrary<string> {
  return fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'role', 'isAdmin', 'userId', 'id', '', ' ', '$where'), fc.string({ maxLength: 12 }));
}

/** Text that is not (or not quite) JSON, or JSON the parser accepts but no schema expects. */
export const brokenJsonText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '{',
    '}',
    '[',
    '{"a":',
    '{"a":1,}',
    "{'a':1}",
    '{a:1}',
    'undefined',
    'NaN',
    '-',
    '01',
    '{}garbage',
    '{"a":1}{"b":2}',
    '\uFEFF{}',
    '\u0000',
    'null',
    'true',
    '0',
    '"text"',
    '[]',
    '[{}]',
    '{"":""}',
    '{"a":"\\ud800"}',
    '{"a":"\\u0000"}',
    '{"a":1e99999}',
    '{"a":-1e99999}',
    '{"a":123456789012345678901234567890}',
    '{"a":"\\x41"}',
    '{"a"\u00a0:1}',
  ),
  // Deep nesting: a naive recursive walk over the parsed body would overflow the stack.
  fc.tuple(fc.constantFrom('[', '{"a":'), fc.integer({ min: 100, max: 40_000 })).map(([open, depth]) => {
    const close = open === '[' ? ']' : '}';
    return open.repeat(depth) + '1' + close.repeat(depth);
  }),
  fc.string({ unit: 'binary', maxLength: 200 }),
);

/** A raw JSON text smuggling prototype-pollution keys (JSON.stringify would drop a literal __proto__). */
export function pollutingJson(valid: Record<string, unknown>): fc.Arbitrary<string> {
  const inner = JSON.stringify(valid).slice(1, -1);
  const sep = inner ? ',' : '';
  return fc.constantFrom(
    `{"__proto__":{"role":"admin","isAdmin":true,"polluted":1}${sep}${inner}}`,
    `{"constructor":{"prototype":{"role":"admin","polluted":1}}${sep}${inner}}`,
    `{${inner}${sep}"__proto__":{"polluted":1}}`,
    `{${inner}${sep}"role":"member","role":"admin"}`,
    `{"__proto__":null${sep}${inner}}`,
    `[${JSON.stringify(valid)}]`,
  );
}

/** A valid body with one thing wrong: a field of the wrong type or size, a missing field, an extra key. */
export function mutatedBody(valid: Record<string, unknown>): fc.Arbitrary<unknown> {
  const keys = Object.keys(valid);
  const replace = keys.length ? fc.tuple(fc.constantFrom(...keys), nastyValue).map(([k, v]) => ({ ...valid, [k]: v })) : nastyValue.map((v) => ({ x: v }));
  const drop = keys.length ? fc.constantFrom(...keys).map((k) => Object.fromEntries(Object.entries(valid).filter(([key]) => key !== k))) : fc.constant({});
  const extra = fc.tuple(nastyKey(), nastyValue).map(([k, v]) => {
    const copy: Record<string, unknown> = { ...valid };
    Object.defineProperty(copy, k, { value: v, enumerable: true, configurable: true, writable: true });
    return copy;
  });
  return fc.oneof(
    { weight: 5, arbitrary: replace },
    { weight: 2, arbitrary: drop },
    { weight: 2, arbitrary: extra },
    { weight: 1, arbitrary: fc.constant(valid) },
    { weight: 2, arbitrary: nastyValue },
  );
}

export interface BodyChoice {
  body?: string | Buffer;
  contentType?: string;
}

const JSON_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=UTF-16',
  'application/json; charset=latin1',
  'application/json; charset=klingon',
  'application/json;;;',
  'application/merge-patch+json',
  'application/vnd.api+json',
  'APPLICATION/JSON',
];
const OTHER_TYPES = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data', 'multipart/form-data; boundary=', 'application/xml', '*/*', 'garbage', ';', ''];

/** A request body for a JSON endpoint, with the Content-Type it travels under. */
export function jsonBody(valid: Record<string, unknown> | undefined): fc.Arbitrary<BodyChoice> {
  const base = valid ?? {};
  const text = fc.oneof(
    { weight: 6, arbitrary: mutatedBody(base).map((v) => JSON.stringify(v) ?? 'null') },
    { weight: 2, arbitrary: brokenJsonText },
    { weight: 1, arbitrary: pollutingJson(base) },
  );
  const contentType = fc.oneof(
    { weight: 6, arbitrary: fc.constant('application/json') },
    { weight: 2, arbitrary: fc.constantFrom(...JSON_TYPES) },
    { weight: 1, arbitrary: fc.constantFrom(...OTHER_TYPES) },
  );
  return fc.oneof(
    { weight: 10, arbitrary: fc.record({ body: text, contentType }) },
    { weight: 1, arbitrary: fc.constant<BodyChoice>({}) },
    { weight: 1, arbitrary: fc.constant<BodyChoice>({ body: Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0xc3, 0x28]), contentType: 'application/json' }) },
  );
}

/** Query values that trip numeric coercion, dates, enums and length limits. */
export const nastyQueryValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    '-1',
    '0',
    '1',
    '2',
    '12',
    '13',
    '50',
    '100',
    '101',
    '1e3',
    '1.5',
    '0x10',
    'NaN',
    'Infinity',
    '-Infinity',
    '9'.repeat(400),
    '  1',
    '1 ',
    'true',
    'false',
    'yes',
    'latest',
    'name',
    '2024',
    '2024-05-01',
    '2024-05-01T08:00:00Z',
    '2024-13-45',
    'admin',
    'member',
  ),
  fc.constantFrom(
    '0000-01-01',
    '0001-01-01T00:00:00+01:00',
    '9999-12-31T23:59:59-14:00',
    '+275760-09-13T00:00:00Z',
    '-000001-01-01T00:00:00Z',
    '2024-02-29',
    '2023-02-29',
    '2024-05-01T08:00:00.123456789Z',
    '2024-05-01T08:00Z',
    '2024-05-01 08:00:00',
  ),
  nastyString.map((s) => s.slice(0, 500)),
);

/** encodeURIComponent, but lone surrogates become U+FFFD (as UTF-8 encoding does) instead of throwing. */
export function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export interface QueryPair {
  key: string;
  value: string;
  /** Sent without percent-encoding (malformed escapes reach the parser as they are). */
  raw: boolean;
}

export function queryPairs(knownKeys: string[]): fc.Arbitrary<QueryPair[]> {
  const key = fc.oneof(
    { weight: 5, arbitrary: knownKeys.length ? fc.constantFrom(...knownKeys) : fc.constant('page') },
    { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'page[]', 'limit[0]', 'a[b]', '', 'toString', 'sort[$gt]') },
    { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
  );
  const pair = fc.record({ key, value: nastyQueryValue, raw: fc.boolean() });
  return fc.array(pair, { maxLength: 6 });
}

/** Encodes pairs into "?a=b&a=c" (repeated keys stay repeated). Raw values keep only what Node lets into a path. */
export function queryString(pairs: QueryPair[]): string {
  if (pairs.length === 0) return '';
  const enc = (s: string, raw: boolean) => (raw ? Array.from(s.replace(/[#&=]/g, ''), (c) => (/[\x21-\x7e]/.test(c) ? c : percentEncode(c))).join('') : percentEncode(s));
  return `?${pairs.map((p) => `${enc(p.key, p.raw)}=${enc(p.value, p.raw)}`).join('&')}`;
}

/** A path segment in place of an id: well-formed but wrong, or not an id at all. */
export function idSegment(pool: string[]): fc.Arbitrary<string> {
  const wellFormed = fc.oneof(
    ...(pool.length ? [fc.constantFrom(...pool)] : []),
    fc.constant('00000000-0000-0000-0000-000000000000'),
    fc.uuid().map((u) => u),
    pool.length ? fc.constantFrom(...pool).map((u) => u.toUpperCase()) : fc.uuid(),
  );
  const malformed = fc.oneof(
    fc.constantFrom(
      'x',
      '1',
      '-1',
      '0',
      'null',
      'undefined',
      '..',
      '%2e%2e',
      '%2F',
      '%00',
      '%',
      '%zz',
      'contact',
      'thread',
      'me',
      'all',
      'my',
      '{id}',
      ':id',
      `${'a'.repeat(2000)}`,
    ),
    fc.uuid().map((u) => `${u}x`),
    fc.uuid().map((u) => `{${u}}`),
    fc.uuid().map((u) => u.replace(/-/g, '')),
    fc.uuid().map((u) => `${u}%00`),
    fc.uuid().map((u) => `${u}'--`),
    nastyString.map((s) => percentEncode(s.slice(0, 300)) || 'x'),
  );
  return fc.oneof({ weight: 3, arbitrary: wellFormed }, { weight: 2, arbitrary: malformed });
}

/** Header values Node lets through (visible ASCII, tab, latin-1); control characters cannot be sent at all. */
export const headerText: fc.Arbitrary<string> = fc.oneof(nastyString, fc.string({ unit: 'binary-ascii', maxLength: 60 })).map((s) =>
  Array.from(s.slice(0, 1000))
    .map((c) => (/[\t\x20-\x7e\x80-\xff]/.test(c) ? c : '_'))
    .join(''),
);

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** Tokens that look like ours and are not: unsigned, wrongly signed, wrong shape. */
export function forgedTokens(sample: { userId: string; sessionId: string }): string[] {
  const claims = { id: sample.userId, username: 'x', role: 'admin', sid: sample.sessionId, typ: 'access', iss: 'staff-crm', aud: 'access', exp: 4102444800 };
  const none = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims)}.`;
  const header = base64url({ alg: 'HS256', typ: 'JWT' });
  const body = base64url(claims);
  const wrongKey = crypto.createHmac('sha256', 'not-the-key').update(`${header}.${body}`).digest('base64url');
  return [
    none,
    `${header}.${body}.${wrongKey}`,
    `${header}.${body}`,
    `${header}..`,
    'a.b.c',
    '...',
    `${base64url({ alg: 'RS256' })}.${body}.${wrongKey}`,
    `${base64url('not an object')}.${base64url([1, 2])}.x`,
    'x'.repeat(4000),
  ];
}
