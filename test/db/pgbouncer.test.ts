/**
 * Issue 50: the service through PgBouncer with PgBouncer's default configuration. Before, the pool and
 * the LISTEN connection sent statement_timeout and idle_in_transaction_session_timeout as startup
 * parameters, which PgBouncer refuses ("unsupported startup parameter"), so nothing worked through it.
 * Now they are SET after the log-in (src/db/connection-settings.ts) and must still be in force.
 *
 * - session mode: everything through PgBouncer (serve's pool and LISTEN, a crm-admin command), and a
 *   statement beyond the statement timeout is cancelled (57014, said in the log as such: not the
 *   client's query timeout, which is longer);
 * - transaction mode, as docs/scale-out.md says: the pool through PgBouncer, LISTEN straight to
 *   PostgreSQL (DATABASE_LISTEN_URL), the timeouts per database (ALTER DATABASE ... SET): writes,
 *   live events and the statement timeout all work.
 */
import { expect } from 'chai';
import type { Sequelize, Transaction } from 'sequelize';
import { requirePrerequisite } from '../support/prerequisite.js';
import { pgbouncerInstalled, startPgBouncer, type PgBouncer } from '../support/pgbouncer.js';
import { scratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';
import { SseClient } from '../support/sse-client.js';
import { freshMailUser } from '../sync/helpers.js';
import { childEnvOn, serveWithUser, type Served } from './served.js';

const STATEMENT_TIMEOUT_MS = 1_000;

/** While another session holds `users` locked (even a read waits), a read of the admin's user list. */
async function readWhileLocked(db: Sequelize, served: Served): Promise<Response> {
  const lock: Transaction = await db.transaction();
  try {
    await db.query('LOCK TABLE users IN ACCESS EXCLUSIVE MODE', { transaction: lock });
    return await served.get('/api/admin/users?limit=5');
  } finally {
    await lock.rollback();
  }
}

async function expectStatementCancelled(db: Sequelize, served: Served): Promise<void> {
  const res = await readWhileLocked(db, served);
  expect(res.status, await res.clone().text()).to.equal(503);
  expect(res.headers.get('retry-after')).to.equal('5');
  expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('service_unavailable');
  // The server's statement timeout cancelled it (57014), not the client giving up on an unanswered query.
  expect(served.serve.output()).to.include('database statement cancelled (timeout or operator): answering 503');
}

describe('database: through PgBouncer with its default configuration', function () {
  this.timeout(120_000);
  let scratch: ScratchDatabase | undefined;
  let bouncer: PgBouncer | undefined;
  let served: Served | undefined;

  beforeEach(function () {
    requirePrerequisite(this, pgbouncerInstalled(), 'pgbouncer (Debian package pgbouncer, /usr/sbin/pgbouncer)');
  });

  afterEach(async () => {
    const code = await served?.stop();
    served = undefined;
    await bouncer?.close();
    bouncer = undefined;
    await scratch?.drop();
    scratch = undefined;
    if (code !== undefined) expect(code, 'serve exits cleanly').to.equal(0);
  });

  it('session mode: serve (pool and LISTEN) and crm-admin work, and a statement beyond the timeout is cancelled', async () => {
    scratch = await scratchDatabase('crm_pgbouncer_session', { migrated: true });
    bouncer = await startPgBouncer(scratch.url, 'session');
    const env = childEnvOn(bouncer.url, { DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS), DATABASE_QUERY_TIMEOUT_MS: '10000' });
    served = await serveWithUser(env);

    const users = await served.get('/api/admin/users?limit=5');
    expect(users.status, await users.text()).to.equal(200);
    // The live-update stream opens only once the LISTEN connection is in place (else 503).
    const stream = await SseClient.open(`${served.serve.url}/api/events`, { Authorization: served.bearer });
    expect(stream.status).to.equal(200);
    stream.close();
    expect(bouncer.output(), 'PgBouncer refused nothing').not.to.match(/unsupported startup parameter/);

    await expectStatementCancelled(scratch.db, served);
    // And the same connections serve again once the lock is gone.
    expect((await served.get('/api/admin/users?limit=5')).status).to.equal(200);
  });

  it('transaction mode: the pool through PgBouncer and LISTEN straight to PostgreSQL (DATABASE_LISTEN_URL), timeouts per database', async () => {
    scratch = await scratchDatabase('crm_pgbouncer_tx', { migrated: true });
    const name = new URL(scratch.url).pathname.slice(1);
    // What docs/scale-out.md asks for in transaction mode: the timeouts on the database (or the role).
    await scratch.db.query(`ALTER DATABASE ${name} SET statement_timeout = ${STATEMENT_TIMEOUT_MS}`);
    await scratch.db.query(`ALTER DATABASE ${name} SET idle_in_transaction_session_timeout = 60000`);
    bouncer = await startPgBouncer(scratch.url, 'transaction');
    const env = childEnvOn(bouncer.url, {
      DATABASE_LISTEN_URL: scratch.url,
      DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      DATABASE_QUERY_TIMEOUT_MS: '10000',
    });
    const mail = await freshMailUser('pgbouncer');
    served = await serveWithUser(env, { mail });
    const accountId = served.accountId!;

    // A live event: the write commits through PgBouncer, its notification reaches the LISTEN connection.
    const stream = await SseClient.open(`${served.serve.url}/api/events`, { Authorization: served.bearer });
    expect(stream.status).to.equal(200);
    try {
      const created = await served.send('POST', '/api/contacts', { emailAccountId: accountId, email: 'bouncer@client.example', name: 'Cez PgBouncer' });
      expect(created.status, await created.clone().text()).to.equal(201);
      const contactId = ((await created.json()) as { data: { contact: { id: string } } }).data.contact.id;
      const event = await stream.waitFor((e) => e.event === 'contact.created' && e.data.emailAccountId === accountId, 15_000, 'contact.created');
      expect(JSON.stringify(event.data)).to.include(contactId);
    } finally {
      stream.close();
    }
    const contacts = await served.get(`/api/contacts?emailAccountId=${accountId}`);
    expect(contacts.status, await contacts.text()).to.equal(200);

    const lock: Transaction = await scratch.db.transaction();
    try {
      await scratch.db.query('LOCK TABLE contacts IN ACCESS EXCLUSIVE MODE', { transaction: lock });
      const res = await served.get(`/api/contacts?emailAccountId=${accountId}`);
      expect(res.status, await res.text()).to.equal(503);
      expect(res.headers.get('retry-after')).to.equal('5');
    } finally {
      await lock.rollback();
    }
    expect(served.serve.output()).to.include('database statement cancelled (timeout or operator): answering 503');
  });
});
