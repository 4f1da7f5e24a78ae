/**
 * Issue 50, failover: a write that reaches a standby or a demoted primary gets SQLSTATE 25006
 * (read_only_sql_transaction). It answered 500; now it is "database unavailable": 503 with Retry-After,
 * and the connection that got it is dropped, so that the pool's next connection finds the new primary
 * behind the same address. Reads go on working on a read-only database.
 *
 * Reproduced for real: every new pool connection is made read-only (SET SESSION CHARACTERISTICS, as
 * a standby's sessions are), and "the failover" is new connections being read-write again.
 */
import { expect } from 'chai';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createEmailAccount } from '../support/email-factories.js';
import { createUser } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { until } from '../support/poll.js';

interface PooledClient {
  _invalid?: boolean;
  _ending?: boolean;
  query(sql: string): Promise<unknown>;
}

describe('database: a read-only database (failover) answers writes 503, reads 200', function () {
  this.timeout(60_000);
  let app: Express;
  let ctx: AppContext;
  let session: TestSession;
  let accountId: string;
  let readOnly = false;
  const madeReadOnly: PooledClient[] = [];

  type Pool = { destroyAllNow(): Promise<void>; _inUseObjects: Array<{ resource: PooledClient }> };
  const pool = () => (ctx.db.sequelize as unknown as { connectionManager: { pool: Pool } }).connectionManager.pool;

  before(async () => {
    app = await testApp();
    ctx = await testContext();
    const owner = await createUser();
    session = await sessionFor(owner);
    accountId = (await createEmailAccount(owner)).id;
    ctx.db.sequelize.addHook('afterConnect', 'readOnlyStandby', async (connection: unknown) => {
      if (!readOnly) return;
      const client = connection as PooledClient;
      await client.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY');
      madeReadOnly.push(client);
    });
  });

  after(async () => {
    ctx.db.sequelize.removeHook('afterConnect', 'readOnlyStandby');
    await pool().destroyAllNow();
  });

  const createContact = (email: string) => request(app).post('/api/contacts').set('Authorization', session.bearer).send({ emailAccountId: accountId, email, name: 'Po prepnutí' });

  it('answers a write 503 with Retry-After and a read 200, drops the refused connection, and writes again once the primary is back', async () => {
    readOnly = true;
    // A connection another part of the process has checked out right now (the suite shares one process)
    // would come back as a writable one: marked invalid, the pool closes it instead of handing it out.
    for (const used of pool()._inUseObjects) used.resource._invalid = true;
    await pool().destroyAllNow();

    const read = await request(app).get('/api/contacts').query({ emailAccountId: accountId }).set('Authorization', session.bearer);
    expect(read.status, JSON.stringify(read.body)).to.equal(200);
    expect(madeReadOnly.length, 'the read ran on a read-only connection').to.be.greaterThan(0);

    const refused = await createContact('standby@client.example');
    expect(refused.status, JSON.stringify(refused.body)).to.equal(503);
    expect(refused.headers['retry-after']).to.equal('5');
    expect(refused.body).to.deep.equal({ success: false, error: { message: 'Služba je dočasne nedostupná', statusCode: 503, code: 'service_unavailable' } });
    expect(
      madeReadOnly.filter((c) => c._invalid),
      'the refused connection is marked for dropping',
    ).to.have.length(1);

    const again = await request(app).get('/api/contacts').query({ emailAccountId: accountId }).set('Authorization', session.bearer);
    expect(again.status, 'reads still work').to.equal(200);
    // The pool checks a connection when it hands it out: the refused one was closed instead of reused.
    await until(() => madeReadOnly.some((c) => c._invalid && c._ending), { what: 'the refused connection closed' });

    // The new primary behind the same address: new connections are read-write. A read-only connection
    // that only ever read is still pooled (its first write is refused and drops it): the writes succeed
    // again by themselves, within a few tries and without a restart.
    readOnly = false;
    const written = await until(
      async () => {
        const res = await createContact(`primary${Date.now()}@client.example`);
        return res.status === 201 ? res : res.status === 503 ? undefined : Promise.reject(new Error(`answered ${res.status}: ${JSON.stringify(res.body)}`));
      },
      { what: 'a write accepted by the new primary', timeoutMs: 10_000 },
    );
    expect(written.status).to.equal(201);
    const [{ n }] = await ctx.db.sequelize.query<{ n: number }>("SELECT count(*)::int AS n FROM contacts WHERE email_account_id = $1 AND email = 'standby@client.example'", {
      bind: [accountId],
      type: QueryTypes.SELECT,
    });
    expect(n, 'the refused write changed nothing').to.equal(0);
  });
});
