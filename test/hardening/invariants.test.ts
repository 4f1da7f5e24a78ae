import { expect } from 'chai';
import fc from 'fast-check';
import { createUser } from '../support/factories.js';
import { testContext } from '../support/harness.js';
import { fuzz } from './support/fuzz.js';
import type { HttpTarget, RawRequest, RawResponse } from './support/http-target.js';
import { expectSafeAnswer } from './support/invariants.js';

/** The checks the fuzzers rely on must fail on what they exist to catch; otherwise a green run means nothing. */

const req: RawRequest = { method: 'GET', path: '/api/x', headers: {} };
const json = (status: number, body: unknown, contentType = 'application/json; charset=utf-8'): RawResponse => ({
  status,
  headers: { 'content-type': contentType },
  text: JSON.stringify(body),
  json: body,
});
const envelope = (status: number, extra: Record<string, unknown> = {}) => ({
  success: false,
  error: { message: 'Zlá požiadavka', statusCode: status, code: 'bad_request', ...extra },
});

describe("hardening: the fuzzers' invariants catch what they must", () => {
  it('accept a proper error envelope and a proper success', () => {
    expectSafeAnswer(req, json(400, envelope(400, { details: [{ field: 'x', message: 'y' }] })));
    expectSafeAnswer(req, json(200, { success: true, data: {}, message: 'OK' }));
  });

  const bad: Array<[string, RawResponse]> = [
    ['a 500', json(500, { success: false, error: { message: 'Interná chyba servera', statusCode: 500, code: 'internal_error' } })],
    ['an HTML error page', { status: 404, headers: { 'content-type': 'text/html' }, text: '<h1>Not found</h1>', json: undefined }],
    ['an empty 431 body', { status: 431, headers: {}, text: '', json: undefined }],
    ['statusCode different from the status', json(400, envelope(422))],
    ['an extra key in error', json(400, envelope(400, { stack: 'x' }))],
    ['an extra key beside error', json(400, { ...envelope(400), trace: 1 })],
    ['a stack trace in the message', json(400, { success: false, error: { message: 'Error: x\n    at foo (/work/main/src/a.ts:1:2)', statusCode: 400, code: 'bad_request' } })],
    ['SQL in the message', json(400, { success: false, error: { message: 'SELECT * FROM users WHERE id = 1', statusCode: 400, code: 'bad_request' } })],
    ['a driver message', json(400, { success: false, error: { message: 'duplicate key value violates unique constraint', statusCode: 400, code: 'bad_request' } })],
    ['a bcrypt hash', json(400, { success: false, error: { message: '$2b$12$abcdefghijklmnopqrstuv', statusCode: 400, code: 'bad_request' } })],
    ['an error without a code', json(400, { success: false, error: { message: 'Zlá požiadavka', statusCode: 400 } })],
    ['an undocumented error code', json(400, { success: false, error: { message: 'Zlá požiadavka', statusCode: 400, code: 'made_up' } })],
  ];
  for (const [what, res] of bad) {
    it(`reject ${what}`, () => {
      expect(() => expectSafeAnswer(req, res)).to.throw();
    });
  }

  it('reject a secret anywhere in a body, success included', () => {
    expect(() => expectSafeAnswer(req, json(200, { success: true, data: { k: 'hunter2-secret' }, message: 'x' }), { secrets: ['hunter2-secret'] })).to.throw();
  });

  it('allow a 502 only where the mail server is expected to be down', () => {
    expect(() => expectSafeAnswer(req, json(502, envelope(502)))).to.throw();
    expectSafeAnswer(req, json(502, envelope(502)), { allowUpstream: true });
  });

  it('notice a rejected request that changed the database', async () => {
    const ctx = await testContext();
    const { user } = await createUser();
    // A "server" that answers 400 but writes anyway.
    const sneaky: HttpTarget = {
      url: 'sneaky',
      async send() {
        await ctx.db.sequelize.query("UPDATE users SET first_name = first_name || 'x' WHERE id = $1", { bind: [user.id] });
        return json(400, envelope(400));
      },
      async close() {},
    };
    let failure: unknown;
    try {
      await fuzz(sneaky, fc.constant(req), { sequelize: ctx.db.sequelize, userIds: [user.id], numRuns: 1 });
    } catch (err) {
      failure = err;
    }
    // fast-check reports the property's own assertion as the cause.
    expect(String((failure as Error | undefined)?.cause)).to.match(/database changed by a rejected GET \/api\/x \(400\)/);
  });
});
