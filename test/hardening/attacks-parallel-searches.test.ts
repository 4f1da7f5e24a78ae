import { expect } from 'chai';
import type { Express } from 'express';
import { QueryTypes, type Transaction } from 'sequelize';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createContact, createEmailAccount } from '../support/email-factories.js';
import { createUser } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { until } from '../support/poll.js';

/**
 * Issue 52 finding 13: one member's parallel searches must not take the capacity everyone shares.
 * Beyond EXPENSIVE_REQUESTS_PER_USER searches in progress the same user gets 429 with Retry-After at
 * once; another user's search is still admitted. The searches are held in progress by a lock the
 * test takes on the contacts table (they wait on it in the database), not by timing.
 */
const LIMIT = 3;

describe('a per-user bound on searches and exports', function () {
  this.timeout(60_000);
  let app: Express;
  let ctx: AppContext;
  let alice: TestSession;
  let bob: TestSession;
  let aliceAccount: string;
  let bobAccount: string;

  before(async () => {
    [app, ctx] = await Promise.all([testApp({ EXPENSIVE_REQUESTS_PER_USER: String(LIMIT) }), testContext()]);
    const [a, b] = await Promise.all([createUser(), createUser()]);
    const [accountA, accountB] = await Promise.all([createEmailAccount(a), createEmailAccount(b)]);
    await Promise.all([createContact(accountA, { name: 'Hľadaný Partner' }), createContact(accountB, { name: 'Hľadaný Partner' })]);
    [alice, bob] = await Promise.all([sessionFor(a), sessionFor(b)]);
    [aliceAccount, bobAccount] = [accountA.id, accountB.id];
  });

  const search = (who: TestSession, accountId: string) =>
    request(app).get('/api/contacts').query({ emailAccountId: accountId, search: 'partner' }).set('Authorization', who.bearer);

  /** Backends waiting for a lock on contacts (the held searches). */
  const waiting = async (): Promise<number> => {
    const [row] = await ctx.db.sequelize.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'contacts'::regclass AND NOT granted`, {
      type: QueryTypes.SELECT,
    });
    return row.n;
  };

  it('answers the user’s N+1th search in progress 429 with Retry-After, and still admits another user’s', async () => {
    const limit = LIMIT;
    const held: Array<Promise<request.Response>> = [];
    const lock: Transaction = await ctx.db.sequelize.transaction();
    try {
      await ctx.db.sequelize.query('LOCK TABLE contacts IN ACCESS EXCLUSIVE MODE', { transaction: lock });
      for (let i = 0; i < limit; i++) held.push(search(alice, aliceAccount).then((r) => r));
      await until(async () => (await waiting()) >= limit, { what: `${limit} searches of alice waiting on the lock`, timeoutMs: 20_000 });

      const refused = await search(alice, aliceAccount);
      expect(refused.status, JSON.stringify(refused.body)).to.equal(429);
      expect(refused.body.success).to.equal(false);
      expect(refused.body.error).to.include({ statusCode: 429, code: 'rate_limited' });
      expect(refused.body.error.message).to.match(/Príliš veľa súbežných/);
      expect(Number(refused.headers['retry-after'])).to.be.greaterThan(0);
      // Exports share the bound with searches.
      const exported = await request(app).get('/api/contacts/export').query({ emailAccountId: aliceAccount }).set('Authorization', alice.bearer);
      expect(exported.status).to.equal(429);
      expect(exported.body.error.code).to.equal('rate_limited');
      // A cheap request of the same user is not counted.
      expect((await request(app).get('/api/auth/me').set('Authorization', alice.bearer)).status).to.equal(200);

      held.push(search(bob, bobAccount).then((r) => r));
      await until(async () => (await waiting()) >= limit + 1, { what: 'bob’s search waiting on the lock beside alice’s', timeoutMs: 20_000 });
    } finally {
      await lock.commit();
    }
    const answers = await Promise.all(held);
    expect(answers.map((r) => r.status)).to.deep.equal(Array.from({ length: limit + 1 }, () => 200));

    // The places are given back once the answers are out: alice searches again.
    const again = await until(
      async () => {
        const res = await search(alice, aliceAccount);
        return res.status === 200 ? res : undefined;
      },
      { what: 'alice’s places to be given back' },
    );
    expect(again.body.data.items.map((c: { name: string }) => c.name)).to.deep.equal(['Hľadaný Partner']);
  });
});
