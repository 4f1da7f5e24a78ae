import { expect } from 'chai';
import { DatabaseError } from 'sequelize';
import request from 'supertest';
import { renderError } from '../../src/http/error-handler.js';
import { testApp } from '../support/harness.js';
import { sessionFor } from '../support/auth.js';
import { createUser } from '../support/factories.js';

/** Defects the fuzzers found, each pinned by the smallest request that showed it. */
describe('hardening: regressions found by fuzzing', () => {
  describe('GET /api/admin/audit-logs with a year before 1 (was a 500: the database rejects year 0)', () => {
    let bearer: string;
    before(async () => {
      bearer = (await sessionFor(await createUser({ role: 'admin', password: 'Admin-Regression-2026' }))).bearer;
    });

    for (const query of ['since=0000-01-01', 'until=0000-12-31', 'since=0001-01-01T00:00:00%2B01:00']) {
      it(`?${query} is a 400 in the envelope`, async () => {
        const res = await request(await testApp())
          .get(`/api/admin/audit-logs?${query}`)
          .set('Authorization', bearer);
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        expect(res.body).to.deep.include({ success: false });
        expect(res.body.error).to.include({ message: 'Neplatné údaje', statusCode: 400 });
      });
    }

    it('still accepts the first day of year 1 and a far future bound', async () => {
      const res = await request(await testApp())
        .get('/api/admin/audit-logs?since=0001-01-01&until=9999-12-31T23:59:59Z')
        .set('Authorization', bearer);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    });
  });

  describe('a query on a connection the database dropped (was a 500 while PostgreSQL restarted; faults-postgres)', () => {
    const dropped = (message: string) => new DatabaseError(Object.assign(new Error(message), { sql: 'INSERT INTO users ...' }));

    for (const message of ['Client has encountered a connection error and is not queryable', 'Client was closed and is not queryable', 'Connection terminated unexpectedly']) {
      it(`"${message}" is a 503 with Retry-After, no internals`, () => {
        const { status, body, headers } = renderError(dropped(message), false);
        expect(status).to.equal(503);
        expect(body).to.deep.equal({ success: false, error: { message: 'Služba je dočasne nedostupná', statusCode: 503, code: 'service_unavailable' } });
        expect(headers['Retry-After']).to.match(/^\d+$/);
      });
    }

    it('any other database error stays the generic 500', () => {
      const { status, body } = renderError(dropped('division by zero'), false);
      expect(status).to.equal(500);
      expect(body.error).to.deep.equal({ message: 'Interná chyba servera', statusCode: 500, code: 'internal_error' });
    });
  });

  describe('two requests that crossed in the database (was a 500; fuzz-concurrency)', () => {
    for (const [code, what] of [
      ['40P01', 'deadlock'],
      ['40001', 'serialization failure'],
    ]) {
      it(`a ${what} (${code}) is a 409 asking to try again, no internals`, () => {
        const err = new DatabaseError(Object.assign(new Error('deadlock detected'), { code, sql: 'DELETE FROM contacts ...' }));
        const { status, body } = renderError(err, false);
        expect(status).to.equal(409);
        expect(body).to.deep.equal({ success: false, error: { message: 'Požiadavka sa stretla so súbežnou zmenou, skúste to znova', statusCode: 409, code: 'conflict' } });
      });
    }
  });
});
