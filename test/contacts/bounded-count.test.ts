/**
 * Lists that grow with a mailbox count at most COUNT_BOUND rows (src/shared/pagination.ts): beyond it
 * the answer says total = the bound and totalExact = false, and paging still reaches every row.
 */
import { expect } from 'chai';
import request from 'supertest';
import { COUNT_BOUND } from '../../src/shared/pagination.js';
import { createEmailAccount } from '../support/email-factories.js';
import { testApp, testContext } from '../support/harness.js';
import { crmUser } from '../sync/helpers.js';

describe('contacts API: a bounded count for large lists', function () {
  this.timeout(120_000);

  it('answers total = the bound and totalExact = false past it, exact totals below it, and pages past the bound', async () => {
    const app = await testApp();
    const ctx = await testContext();
    const owner = await crmUser();
    const big = await createEmailAccount(owner.fixture.user);
    const small = await createEmailAccount(owner.fixture.user);
    const rows = COUNT_BOUND + 25;
    await ctx.db.sequelize.query(
      `INSERT INTO contacts (user_id, email_account_id, email, name)
       SELECT $1, $2, 'c' || g || '@bulk.test', 'Kontakt ' || lpad(g::text, 6, '0') FROM generate_series(1, $3) g`,
      { bind: [owner.fixture.user.id, big.id, rows] },
    );
    await ctx.db.sequelize.query(`INSERT INTO contacts (user_id, email_account_id, email) VALUES ($1, $2, 'one@small.test')`, {
      bind: [owner.fixture.user.id, small.id],
    });

    const first = await owner.as(request(app).get(`/api/contacts?emailAccountId=${big.id}&limit=1`));
    expect(first.status).to.equal(200);
    expect(first.body.data.pagination).to.deep.equal({ page: 1, limit: 1, total: COUNT_BOUND, totalExact: false, hasNext: true });

    // Paging goes on past the bound: the last row is still there.
    const last = await owner.as(request(app).get(`/api/contacts?emailAccountId=${big.id}&limit=1&page=${rows}`));
    expect(last.body.data.items).to.have.length(1);
    // hasNext stays exact past the bound (issue 34): the one-but-last page says more, the last says no more.
    expect(last.body.data.pagination).to.include({ totalExact: false, hasNext: false });
    const butLast = await owner.as(request(app).get(`/api/contacts?emailAccountId=${big.id}&limit=1&page=${rows - 1}`));
    expect(butLast.body.data.pagination).to.include({ totalExact: false, hasNext: true });
    const lastOf100 = await owner.as(request(app).get(`/api/contacts?emailAccountId=${big.id}&limit=100&page=${Math.ceil(rows / 100)}`));
    expect(lastOf100.body.data.items).to.have.length(rows % 100 || 100);
    expect(lastOf100.body.data.pagination.hasNext).to.equal(false);
    const beyond = await owner.as(request(app).get(`/api/contacts?emailAccountId=${big.id}&limit=1&page=${rows + 1}`));
    expect(beyond.body.data.items).to.have.length(0);

    const exact = await owner.as(request(app).get(`/api/contacts?emailAccountId=${small.id}`));
    expect(exact.body.data.pagination).to.deep.equal({ page: 1, limit: 50, total: 1, totalExact: true, hasNext: false });
  });
});
