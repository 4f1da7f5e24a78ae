import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../src/app/context.js';
import type { EmailAccount } from '../../src/models/index.js';
import { SyncService } from '../../src/sync/sync-service.js';
import { syncDeps } from '../sync/helpers.js';
import { createUser } from '../support/factories.js';
import { testContext } from '../support/harness.js';
import { appendMessage, buildMessage, createTestMailUser, testJmapSessionUrl } from '../support/imap.js';
import { startFaultServer, type JmapFault } from './support/jmap-faults.js';
import { CLOSED_JMAP_URL } from './support/setup.js';

/**
 * The mail server failing during a sync: down (closed port), silent (beyond the timeout), answering
 * garbage (HTML, a JSON that is no session, API answers of the wrong shape), or dying in the middle
 * of the run. Each time must hold afterwards: the run ends (no throw, no hang), the account is in
 * status error with a last_error and a backoff, its lease is released, no email or contact row is
 * lost or duplicated; and the next run against the real server picks up everything.
 */

interface StoredRow {
  jmap_id: string;
  subject: string;
  contact: string;
}

async function storedRows(ctx: AppContext, accountId: string): Promise<StoredRow[]> {
  return ctx.db.sequelize.query<StoredRow>(
    `SELECT e.jmap_id, e.subject, c.email AS contact FROM emails e JOIN contacts c ON c.id = e.contact_id
      WHERE e.email_account_id = $1 ORDER BY e.subject, e.jmap_id`,
    { bind: [accountId], type: QueryTypes.SELECT },
  );
}

async function contactCount(ctx: AppContext, accountId: string): Promise<number> {
  const [row] = await ctx.db.sequelize.query<{ n: number }>('SELECT count(*)::int AS n FROM contacts WHERE email_account_id = $1', {
    bind: [accountId],
    type: QueryTypes.SELECT,
  });
  return row.n;
}

async function syncState(ctx: AppContext, accountId: string): Promise<Record<string, unknown>> {
  const [row] = await ctx.db.sequelize.query<Record<string, unknown>>('SELECT * FROM mail_sync_states WHERE email_account_id = $1', {
    bind: [accountId],
    type: QueryTypes.SELECT,
  });
  return row;
}

describe('faults: the mail server fails during a sync', function () {
  this.timeout(120_000);
  let ctx: AppContext;
  let mail: { user: string; pass: string };
  let account: EmailAccount;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  const deliver = (n: number, from: string, subject: string) =>
    appendMessage({
      user: mail.user,
      pass: mail.pass,
      mailbox: 'INBOX',
      raw: buildMessage({ from: { name: `Klient ${n}`, email: from }, to: mail.user, subject, body: `Správa ${n}` }),
    });

  before(async () => {
    process.on('unhandledRejection', onUnhandled);
    ctx = await testContext();
    mail = await createTestMailUser('fault');
    for (let i = 1; i <= 3; i++) await deliver(i, `klient${i}@firma.example`, `Pred výpadkom ${i}`);
    const owner = await createUser({ password: 'Jmap-Fault-Pass-2026' });
    account = await ctx.services.emailAccounts.add(owner.user.id, { email: mail.user, emailPassword: mail.pass }, { actor: 'test' }, { requestSync: false });
    expect((await ctx.services.mailSync.syncAccount(account.id)).outcome).to.equal('ok');
    expect(await storedRows(ctx, account.id)).to.have.length(3);
    // New mail waiting on the server while it misbehaves: the recovery run must bring exactly these.
    for (let i = 4; i <= 8; i++) await deliver(i, `klient${i % 2 ? 'A' : 'B'}@firma.example`, `Počas výpadku ${i}`);
  });
  after(() => {
    process.off('unhandledRejection', onUnhandled);
  });

  async function expectCleanFailure(run: () => Promise<{ outcome: string; error?: string }>, rowsBefore: StoredRow[], failuresBefore: number) {
    // The run ends (this test's timeout is the deadline): a fault must not hang the sync.
    const result = await run();
    expect(result.outcome, JSON.stringify(result)).to.equal('error');
    const state = await syncState(ctx, account.id);
    expect(state.status).to.equal('error');
    expect(state.last_error).to.be.a('string').and.equal(result.error);
    expect(state.last_error).not.to.include(mail.pass);
    expect(state.last_error).not.to.match(/\bat \w|node_modules|Error:|https?:\/\//);
    expect(state.consecutive_failures).to.equal(failuresBefore + 1);
    expect((state.next_attempt_at as Date).getTime(), 'a backoff before the next attempt').to.be.greaterThan((state.last_attempt_at as Date).getTime());
    expect(state.locked_by, 'the lease is released').to.equal(null);
    expect(await storedRows(ctx, account.id), 'rows of the account').to.deep.equal(rowsBefore);
    return state;
  }

  const faults: JmapFault[] = ['silent', 'html', 'wrong-session', 'wrong-api'];

  it('down (a closed port): status error with backoff, nothing lost', async () => {
    const down = await testContext({ JMAP_SESSION_URL: CLOSED_JMAP_URL, JMAP_TIMEOUT_MS: '1000' });
    const before = await storedRows(ctx, account.id);
    const failures = Number((await syncState(ctx, account.id)).consecutive_failures);
    await expectCleanFailure(() => down.services.mailSync.syncAccount(account.id), before, failures);
  });

  for (const fault of faults) {
    it(`${fault}: status error with backoff, nothing lost or duplicated`, async () => {
      const server = await startFaultServer(fault, testJmapSessionUrl());
      try {
        const faulty = await testContext({ JMAP_SESSION_URL: server.sessionUrl, JMAP_TIMEOUT_MS: '1000' });
        const before = await storedRows(ctx, account.id);
        const failures = Number((await syncState(ctx, account.id)).consecutive_failures);
        await expectCleanFailure(() => faulty.services.mailSync.syncAccount(account.id), before, failures);
      } finally {
        await server.close();
      }
    });
  }

  it('dying in the middle of a run (connections reset after the first API call): what was committed stays, once', async () => {
    const server = await startFaultServer('cut-mid-sync', testJmapSessionUrl(), { cutAfter: 1 });
    try {
      const faulty = await testContext({ JMAP_SESSION_URL: server.sessionUrl, JMAP_TIMEOUT_MS: '1000' });
      // Small batches, so that some of the new mail is committed before the server dies.
      const sync = new SyncService(syncDeps(faulty), { batchSize: 2, maxChanges: 2 });
      const failures = Number((await syncState(ctx, account.id)).consecutive_failures);
      const result = await sync.syncAccount(account.id);
      expect(result.outcome, JSON.stringify(result)).to.equal('error');
      expect(server.apiCalls()).to.be.greaterThan(1);
      const state = await syncState(ctx, account.id);
      expect(state).to.include({ status: 'error', consecutive_failures: failures + 1, locked_by: null });
      const rows = await storedRows(ctx, account.id);
      // Part of the new mail was committed before the server died (the recovery must not duplicate it).
      expect(result.emailsCreated, JSON.stringify(result)).to.be.greaterThan(0);
      expect(rows.length, 'some, not all, of the waiting mail').to.be.greaterThan(3).and.below(8);
      expect(new Set(rows.map((r) => r.jmap_id)).size, 'no email stored twice').to.equal(rows.length);
    } finally {
      await server.close();
    }
  });

  it('the next run against the real server succeeds and brings exactly the mail that was waiting', async () => {
    const result = await ctx.services.mailSync.syncAccount(account.id);
    expect(result.outcome, JSON.stringify(result)).to.equal('ok');
    const rows = await storedRows(ctx, account.id);
    expect(rows.map((r) => r.subject)).to.deep.equal([
      'Počas výpadku 4',
      'Počas výpadku 5',
      'Počas výpadku 6',
      'Počas výpadku 7',
      'Počas výpadku 8',
      'Pred výpadkom 1',
      'Pred výpadkom 2',
      'Pred výpadkom 3',
    ]);
    expect(new Set(rows.map((r) => r.jmap_id)).size).to.equal(8);
    // klient1..3 before, klientA and klientB during the outage: one contact each.
    expect(await contactCount(ctx, account.id)).to.equal(5);
    const state = await syncState(ctx, account.id);
    expect(state).to.include({ status: 'ok', last_error: null, consecutive_failures: 0, locked_by: null });
    // A second run finds nothing new and changes nothing.
    expect((await ctx.services.mailSync.syncAccount(account.id)).outcome).to.equal('ok');
    expect(await storedRows(ctx, account.id)).to.deep.equal(rows);
  });

  it('NUL characters in subjects, names and bodies (JSON allows them, PostgreSQL text does not): stored cleaned, the run succeeds', async () => {
    const other = await createTestMailUser('nul');
    await appendMessage({
      user: other.user,
      pass: other.pass,
      mailbox: 'INBOX',
      raw: buildMessage({ from: { name: 'Klient', email: 'nul@firma.example' }, to: other.user, subject: 'Ahoj', body: 'Telo správy' }),
    });
    const owner = await createUser({ password: 'Jmap-Nul-Pass-2026' });
    const nulAccount = await ctx.services.emailAccounts.add(owner.user.id, { email: other.user, emailPassword: other.pass }, { actor: 'test' }, { requestSync: false });
    const server = await startFaultServer('nul-in-mail', testJmapSessionUrl());
    try {
      const faulty = await testContext({ JMAP_SESSION_URL: server.sessionUrl, JMAP_TIMEOUT_MS: '5000' });
      const result = await faulty.services.mailSync.syncAccount(nulAccount.id);
      expect(result.outcome, JSON.stringify(result)).to.equal('ok');
      expect(server.injected(), 'values the server poisoned').to.be.greaterThan(2);
      const [row] = await ctx.db.sequelize.query<{ subject: string; body: string; name: string }>(
        'SELECT e.subject, e.body, c.name FROM emails e JOIN contacts c ON c.id = e.contact_id WHERE e.email_account_id = $1',
        { bind: [nulAccount.id], type: QueryTypes.SELECT },
      );
      expect(row).to.deep.equal({ subject: 'Ahoj', body: 'Telo správy', name: 'Klient' });
    } finally {
      await server.close();
    }
  });

  it('no promise was left rejected and unhandled by any of the failed runs', () => {
    expect(unhandled).to.deep.equal([]);
  });
});
