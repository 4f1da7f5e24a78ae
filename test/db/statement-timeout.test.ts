/**
 * An overloaded database cancels statements at their statement timeout (SQLSTATE 57014). Issue 36's
 * connections bench saw 15 of 40 concurrent searches answered 500 for it. Now a 503 in the error
 * envelope with Retry-After, no SQL or stack in the body, said once per burst in the log with the route;
 * a cancelled write changed nothing (its transaction was rolled back), so it is a 503 too (docs/adr/0123).
 *
 * Reproduced for real: the pool's connections get a tiny statement_timeout (set on each new
 * connection for this test only), and a statement of the request waits on a table another transaction
 * holds locked, until PostgreSQL cancels it.
 */
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import type { Express } from 'express';
import { QueryTypes, type Transaction } from 'sequelize';
import request from 'supertest';
import winston from 'winston';
import type { AppContext } from '../../src/app/context.js';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createEmailAccount } from '../support/email-factories.js';
import { createUser } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';

const TINY_TIMEOUT_MS = 300;

describe('database: a statement cancelled at its timeout is a 503, never a 500', function () {
  this.timeout(60_000);
  let app: Express;
  let ctx: AppContext;
  let session: TestSession;
  let accountId: string;
  const logLines: Array<Record<string, unknown>> = [];
  let restoreLogger: () => void;

  type Pool = { destroyAllNow(): Promise<void> };
  const pool = () => (ctx.db.sequelize as unknown as { connectionManager: { pool: Pool } }).connectionManager.pool;
  const setTinyTimeout = async (connection: unknown) => {
    await (connection as { query(sql: string): Promise<unknown> }).query(`SET statement_timeout = ${TINY_TIMEOUT_MS}`);
  };

  /** Runs `work` while another transaction holds `table` locked (ACCESS EXCLUSIVE: even a read waits). */
  async function whileLocked<T>(table: string, work: () => Promise<T>): Promise<T> {
    const lock: Transaction = await ctx.db.sequelize.transaction();
    try {
      await ctx.db.sequelize.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`, { transaction: lock });
      return await work();
    } finally {
      await lock.rollback();
    }
  }

  before(async () => {
    app = await testApp();
    ctx = await testContext();
    const owner = await createUser();
    session = await sessionFor(owner);
    accountId = (await createEmailAccount(owner)).id;
    // The log, as an operator reads it.
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) logLines.push(JSON.parse(line) as Record<string, unknown>);
    });
    const logger = ctx.logger;
    const { silent, level } = logger;
    const transport = new winston.transports.Stream({ stream });
    const others = [...logger.transports];
    for (const t of others) logger.remove(t);
    logger.add(transport);
    logger.silent = false;
    logger.level = 'info';
    restoreLogger = () => {
      logger.remove(transport);
      for (const t of others) logger.add(t);
      logger.silent = silent;
      logger.level = level;
    };
    // From here on, every new pool connection runs with the tiny timeout.
    ctx.db.sequelize.addHook('afterConnect', 'tinyStatementTimeout', setTinyTimeout);
    await pool().destroyAllNow();
  });

  after(async () => {
    ctx.db.sequelize.removeHook('afterConnect', 'tinyStatementTimeout');
    await pool().destroyAllNow();
    restoreLogger?.();
  });

  const cancelledLogs = () => logLines.filter((l) => typeof l.message === 'string' && l.message.startsWith('database statement cancelled'));

  it('answers a read whose statement ran out of time 503 with Retry-After in the envelope, and logs the burst once with its method and path', async () => {
    const answers = await whileLocked('contacts', () =>
      Promise.all([1, 2, 3].map(() => request(app).get('/api/contacts').query({ emailAccountId: accountId }).set('Authorization', session.bearer))),
    );
    for (const res of answers) {
      expect(res.status, JSON.stringify(res.body)).to.equal(503);
      expect(res.headers['retry-after']).to.equal('5');
      expect(res.body).to.deep.equal({ success: false, error: { message: 'Služba je dočasne nedostupná', statusCode: 503, code: 'service_unavailable' } });
    }
    const logged = cancelledLogs();
    expect(logged, JSON.stringify(logLines)).to.have.length(1);
    expect(logged[0]).to.include({ level: 'warn', method: 'GET', path: '/api/contacts', status: 503 });
    expect(logged[0].cause).to.match(/statement timeout/);
    expect(
      logLines.filter((l) => l.level === 'error'),
      'no "request failed" at error',
    ).to.deep.equal([]);
  });

  it('answers a write cancelled the same way 503, and the write changed nothing', async () => {
    const count = async () =>
      (await ctx.db.sequelize.query<{ n: number }>('SELECT count(*)::int AS n FROM contacts WHERE email_account_id = $1', { bind: [accountId], type: QueryTypes.SELECT }))[0].n;
    const before = await count();
    const res = await whileLocked('contacts', () =>
      request(app).post('/api/contacts').set('Authorization', session.bearer).send({ emailAccountId: accountId, email: 'timeout@client.example', name: 'Neuložený' }),
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(503);
    expect(res.headers['retry-after']).to.equal('5');
    expect(res.body.error).to.deep.equal({ message: 'Služba je dočasne nedostupná', statusCode: 503, code: 'service_unavailable' });
    expect(await count()).to.equal(before);
  });
});
