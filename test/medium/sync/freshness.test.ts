import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import type { AppContext } from '../../../src/app/context.js';
import { JobRunner } from '../../../src/jobs/job-runner.js';
import { phaseMs, tickMs } from '../../../src/sync/sync-schedule.js';
import type { SyncService } from '../../../src/sync/sync-service.js';
import { testApp, testContext } from '../../support/harness.js';
import { until } from '../../support/poll.js';
import { crmUser, freshMailUser, otherSyncService, put, syncState, type CrmUser, type MailUser } from '../../sync/helpers.js';

const INTERVAL_SECONDS = 2;

/**
 * Freshness without anyone asking: a scheduler like `serve`'s (a short SYNC_INTERVAL here) brings new
 * mail into the API on its own, every account at its own turn within the interval.
 */
describe('mail sync: new mail appears on its own', function () {
  this.timeout(90_000);
  let app: Express;
  let ctx: AppContext;
  let sync: SyncService;
  let scheduler: JobRunner;
  const accounts: Array<{ id: string; owner: CrmUser; mail: MailUser }> = [];
  const run = randomBytes(3).toString('hex');

  const subjectsVia = async (owner: CrmUser) => {
    const res = await owner.as(request(app).get('/api/emails'));
    expect(res.status).to.equal(200);
    return (res.body.data.items as Array<{ subject: string }>).map((e) => e.subject);
  };

  before(async () => {
    app = await testApp();
    ctx = await testContext();
    for (let i = 0; i < 2; i++) {
      const mail = await freshMailUser('fresh');
      await put(mail, 'INBOX', { from: `old${i}@customer.example`, to: mail.user, subject: `Old ${run} ${i}`, body: 'old' });
      const owner = await crmUser();
      // Linked without "sync now": only the schedule brings anything in.
      const account = await ctx.services.emailAccounts.add(owner.fixture.user.id, { email: mail.user, emailPassword: mail.pass }, { actor: 'test' }, { requestSync: false });
      await ctx.db.sequelize.query('UPDATE mail_sync_states SET requested_at = NULL WHERE email_account_id = $1', { bind: [account.id] });
      accounts.push({ id: account.id, owner, mail });
    }
    sync = otherSyncService(ctx, { intervalSeconds: INTERVAL_SECONDS });
    const ids = accounts.map((a) => a.id);
    // serve's scheduler, narrowed to this file's accounts (the database is shared with other tests).
    scheduler = new JobRunner(
      [
        {
          name: 'mail-sync',
          description: 'the mail-sync entry of src/app/background-jobs.ts, narrowed to this file',
          schedule: { everySeconds: tickMs(INTERVAL_SECONDS * 1000) / 1000 },
          sharing: 'claimed-rows',
          retries: 'backoff',
          overlap: 'join',
          runsOn: 'sync-instances',
          overdueAfterSeconds: 300,
          run: () => sync.runDueAccounts({ accountIds: ids }),
          backlog: () => sync.jobBacklog(),
          stop: () => sync.shutdown(),
        },
      ],
      ctx.logger,
    );
    scheduler.start();
  });

  after(async () => {
    await scheduler?.stop();
  });

  it('brings mail delivered after the first sync into the API with nobody triggering a sync', async () => {
    for (const { owner } of accounts) await until(async () => (await subjectsVia(owner)).length === 1, { what: 'the first sync', timeoutMs: 30_000 });
    for (const [i, { mail }] of accounts.entries()) {
      await put(mail, 'INBOX', { from: `new${i}@customer.example`, to: mail.user, subject: `New ${run} ${i}`, body: 'new' });
    }
    for (const [i, { owner }] of accounts.entries()) {
      await until(async () => (await subjectsVia(owner)).includes(`New ${run} ${i}`), { what: `new mail of account ${i}`, timeoutMs: 30_000 });
    }
    for (const { id } of accounts) {
      const state = await syncState(ctx, id);
      // Nobody asked: the runs served the account's turns.
      expect(state).to.include({ requested_at: null, last_error: null });
      expect(state.last_success_at).to.be.instanceOf(Date);
    }
  });

  // Waits for its own turns rather than reading what the test above left behind: run alone (--grep)
  // it found no sync yet (next_sync_at null), and its verdict depended on the order of the tests.
  it('keeps each account on its own turn: the next one at its phase of the interval, within one interval', async () => {
    const interval = INTERVAL_SECONDS * 1000;
    for (const { id } of accounts) {
      const first = await turnServed(id, null);
      // The turn after it: the scheduler took the account at (not before) the turn the last run set.
      const second = await turnServed(id, first.last_success_at);
      const firstTurn = first.next_sync_at.getTime();
      expect(second.last_success_at.getTime(), 'the next run waited for its turn').to.be.at.least(firstTurn);
      for (const state of [first, second]) {
        const next = state.next_sync_at.getTime();
        const last = state.last_success_at.getTime();
        expect((((next - phaseMs(id, interval)) % interval) + interval) % interval, 'on the phase').to.equal(0);
        expect(next - last, 'at most one interval after the last run').to.be.at.most(interval);
        expect(next, 'after the last run').to.be.above(last);
      }
    }
  });

  /** The account's state once a run of the scheduler succeeded after `after` (any, when null). */
  async function turnServed(id: string, after: Date | null): Promise<{ last_success_at: Date; next_sync_at: Date }> {
    return until(
      async () => {
        const state = await syncState(ctx, id);
        const last = state.last_success_at;
        if (!(last instanceof Date) || !(state.next_sync_at instanceof Date)) return undefined;
        if (after && last.getTime() <= after.getTime()) return undefined;
        return { last_success_at: last, next_sync_at: state.next_sync_at };
      },
      { what: `a scheduled run of account ${id}${after ? ` after ${after.toISOString()}` : ''}`, timeoutMs: 30_000 },
    );
  }
});
