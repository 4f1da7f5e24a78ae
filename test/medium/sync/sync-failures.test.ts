import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import type { AppContext } from '../../../src/app/context.js';
import { JmapClient } from '../../../src/jmap/index.js';
import { addMailUser } from '../../support/imap.js';
import { testApp, testContext } from '../../support/harness.js';
import { closedPortUrl, crmUser, freshMailUser, linkViaApi, otherSyncService, put, storedEmails, syncState, type CrmUser, type MailUser } from '../../sync/helpers.js';

const secondsBetween = async (ctx: AppContext, accountId: string): Promise<number> => {
  const [row] = await ctx.db.sequelize.query<{ s: number }>(
    'SELECT extract(epoch FROM next_attempt_at - last_attempt_at)::float AS s FROM mail_sync_states WHERE email_account_id = $1',
    { bind: [accountId], type: 'SELECT' as never },
  );
  return row.s;
};

describe('mail sync failures: status, backoff, no retries on wrong credentials', function () {
  this.timeout(60_000);
  let app: Express;
  let ctx: AppContext;
  let mail: MailUser;
  let owner: CrmUser;
  let accountId: string;

  before(async () => {
    app = await testApp();
    ctx = await testContext();
  });

  // Every test has a mail user (its password is changed by one of them) and an account of its own.
  beforeEach(async () => {
    mail = await freshMailUser('fail');
    await put(mail, 'INBOX', { from: { name: 'Olga', email: 'olga@customer.example' }, to: mail.user, subject: 'Order', body: 'One please' });
    owner = await crmUser();
    accountId = await linkViaApi(app, ctx, owner, mail);
    expect((await syncState(ctx, accountId)).status).to.equal('ok');
  });

  it('marks an unreachable server as error with a growing backoff, and recovers', async () => {
    const down = await closedPortUrl();
    const offline = otherSyncService(
      ctx,
      {},
      {
        clientFor: (a) => new JmapClient({ sessionUrl: down, credentials: { kind: 'basic', username: a.email, password: 'irrelevant' }, timeoutMs: 2000 }),
      },
    );

    const first = await offline.syncAccount(accountId);
    expect(first).to.include({ outcome: 'error', error: 'Poštový server nie je dostupný.', failureReason: 'unreachable' });
    let state = await syncState(ctx, accountId);
    expect(state).to.include({ status: 'error', last_error: 'Poštový server nie je dostupný.', consecutive_failures: 1, locked_by: null });
    expect(await secondsBetween(ctx, accountId)).to.be.within(60, 90);
    // Not due during its backoff.
    expect(await offline.runDueAccounts({ accountIds: [accountId] })).to.deep.equal([]);

    expect((await offline.syncAccount(accountId)).outcome).to.equal('error');
    state = await syncState(ctx, accountId);
    expect(state.consecutive_failures).to.equal(2);
    expect(await secondsBetween(ctx, accountId)).to.be.within(120, 150);

    // The data synced before the outage is untouched; the next good run clears the failure.
    expect((await storedEmails(ctx, accountId)).map((e) => e.subject)).to.deep.equal(['Order']);
    expect((await ctx.services.mailSync.syncAccount(accountId)).outcome).to.equal('ok');
    state = await syncState(ctx, accountId);
    expect(state).to.include({ status: 'ok', last_error: null, consecutive_failures: 0, next_attempt_at: null });
  });

  it('stops on wrong credentials (auth_failed, no retries) until the password is changed', async () => {
    const newPassword = `${mail.pass}-changed`;
    await addMailUser(mail.user, newPassword); // the mailbox password changes behind the CRM's back

    const result = await ctx.services.mailSync.syncAccount(accountId);
    expect(result.outcome).to.equal('auth_failed');
    const state = await syncState(ctx, accountId);
    expect(state).to.include({ status: 'auth_failed', consecutive_failures: 1, next_attempt_at: null, locked_by: null });
    expect(state.last_error)
      .to.match(/prihlasovacie údaje/)
      .and.not.to.include(mail.pass);

    // The scheduler does not try again, however often it ticks.
    expect(await ctx.services.mailSync.runDueAccounts({ accountIds: [accountId] })).to.deep.equal([]);
    expect(await otherSyncService(ctx).runDueAccounts({ accountIds: [accountId] })).to.deep.equal([]);
    expect((await syncState(ctx, accountId)).last_attempt_at).to.deep.equal(state.last_attempt_at);

    const listed = await owner.as(request(app).get('/api/email-accounts'));
    expect(listed.body.data.items[0].sync).to.include({ status: 'auth_failed', consecutiveFailures: 1 });

    // New credentials through the API lift the stop and sync at once.
    const fixed = await owner.as(request(app).patch(`/api/email-accounts/${accountId}`)).send({ emailPassword: newPassword });
    expect(fixed.status).to.equal(200);
    await ctx.services.mailSync.whenIdle();
    expect(await syncState(ctx, accountId)).to.include({ status: 'ok', consecutive_failures: 0, last_error: null });
  });

  it('skips inactive accounts', async () => {
    const off = await owner.as(request(app).patch(`/api/email-accounts/${accountId}`)).send({ isActive: false });
    expect(off.status).to.equal(200);
    await ctx.db.sequelize.query('UPDATE mail_sync_states SET next_attempt_at = NULL, requested_at = now() WHERE email_account_id = $1', { bind: [accountId] });
    expect(await ctx.services.mailSync.runDueAccounts({ accountIds: [accountId] })).to.deep.equal([]);
    expect((await ctx.services.mailSync.syncAccount(accountId)).outcome).to.equal('skipped');
    const on = await owner.as(request(app).patch(`/api/email-accounts/${accountId}`)).send({ isActive: true });
    expect(on.status).to.equal(200);
    await ctx.services.mailSync.whenIdle();
    expect((await syncState(ctx, accountId)).status).to.equal('ok');
  });
});
