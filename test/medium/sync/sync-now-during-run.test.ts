import { expect } from 'chai';
import { QueryTypes, type Transaction } from 'sequelize';
import request from 'supertest';
import { testApp, testContext } from '../../support/harness.js';
import { until } from '../../support/poll.js';
import { crmUser, freshMailUser, linkViaApi, put } from '../../sync/helpers.js';

/**
 * "Sync now" is never lost (issue 45): a POST /api/email-accounts/:id/sync that arrives while a run of
 * the account is under way makes another run right after it, so mail delivered meanwhile is in the CRM
 * without waiting for the next interval. The run is held at its first page write by a lock on the
 * account row (a batch takes it FOR KEY SHARE before anything else), after it has read the changes.
 */
describe('sync now during a run', function () {
  this.timeout(90_000);

  it('a request while the account syncs runs the sync again right after, and finds the mail delivered meanwhile', async () => {
    const [app, ctx] = await Promise.all([testApp(), testContext()]);
    const mail = await freshMailUser('syncnow');
    const owner = await crmUser();
    const accountId = await linkViaApi(app, ctx, owner, mail);
    await put(mail, 'INBOX', { from: 'klient@customer.example', to: mail.user, subject: 'Prvá počas behu', body: 'a' });

    const holder: Transaction = await ctx.db.sequelize.transaction();
    let released = false;
    try {
      await ctx.db.sequelize.query('SELECT 1 FROM email_accounts WHERE id = $1 FOR UPDATE', { bind: [accountId], transaction: holder });
      await ctx.services.mailSync.requestSync(accountId);
      // The run has read the first message and waits for the account row to write it.
      await until(
        async () => {
          const rows = await ctx.db.sequelize.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%email_accounts%FOR KEY SHARE%'`,
            { type: QueryTypes.SELECT },
          );
          return rows[0].n > 0;
        },
        { what: 'the sync run waiting for the account row', timeoutMs: 30_000, intervalMs: 50 },
      );
      await put(mail, 'INBOX', { from: 'klient@customer.example', to: mail.user, subject: 'Druhá počas behu', body: 'b' });
      const now = await owner.as(request(app).post(`/api/email-accounts/${accountId}/sync`));
      expect(now.status, JSON.stringify(now.body)).to.equal(202);
      await holder.commit();
      released = true;
    } finally {
      if (!released) await holder.rollback();
    }
    await ctx.services.mailSync.whenIdle();
    const subjects = await ctx.db.sequelize.query<{ subject: string }>('SELECT subject FROM emails WHERE email_account_id = $1 ORDER BY subject', {
      bind: [accountId],
      type: QueryTypes.SELECT,
    });
    expect(subjects.map((s) => s.subject)).to.include.members(['Prvá počas behu', 'Druhá počas behu']);
  });
});
