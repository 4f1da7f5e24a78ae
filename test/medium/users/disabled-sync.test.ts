import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { Sql } from '../../../src/db/sql.js';
import type { EmailAccount } from '../../../src/models/index.js';
import { SyncRepository } from '../../../src/sync/sync-repository.js';
import { createEmailAccount } from '../../support/email-factories.js';
import { createUser, type UserFixture } from '../../support/factories.js';
import { testContext } from '../../support/harness.js';

/**
 * A disabled user's own mailboxes stop syncing, unless an active colleague shares them. The accounts
 * have made-up credentials: a run that is let through ends in auth_failed or error at the mail server,
 * one that is not is "skipped" without asking it.
 */
describe("a disabled user's email accounts and the sync", function () {
  this.timeout(60_000);
  let leaver: UserFixture;
  let account: EmailAccount;

  beforeEach(async () => {
    leaver = await createUser();
    account = await createEmailAccount(leaver);
    await leaver.user.update({ disabledAt: new Date() });
  });

  async function share(accountId: string, member: UserFixture): Promise<void> {
    const ctx = await testContext();
    await ctx.db.sequelize.query("INSERT INTO email_account_members (email_account_id, user_id, role, can_read, can_send) VALUES ($1, $2, 'viewer', true, false)", {
      bind: [accountId, member.user.id],
      type: QueryTypes.INSERT,
    });
  }

  it('is neither claimed from the queue nor synced on request', async () => {
    const { mailSync } = (await testContext()).services;
    expect(await mailSync.runDueAccounts({ accountIds: [account.id] })).to.deep.equal([]);
    const forced = await mailSync.syncAccount(account.id);
    expect(forced.outcome).to.equal('skipped');
    expect(forced.requests).to.equal(0);
    const [row] = await (
      await testContext()
    ).db.sequelize.query<{ last_attempt_at: Date | null }>('SELECT last_attempt_at FROM mail_sync_states WHERE email_account_id = $1', {
      bind: [account.id],
      type: QueryTypes.SELECT,
    });
    expect(row?.last_attempt_at ?? null).to.equal(null);
  });

  it('is left out of a sync of every account (crm-admin sync run)', async () => {
    const ctx = await testContext();
    // syncAll runs the accounts of this list; only the list is checked here (no run of everyone's mail in the shared database).
    const repository = new SyncRepository(new Sql(ctx.db.sequelize));
    await repository.ensureStateRows();
    expect(await repository.activeAccountIds(true)).not.to.include(account.id);
    await leaver.user.update({ disabledAt: null });
    expect(await repository.activeAccountIds(true)).to.include(account.id);
  });

  it('still syncs when an active colleague shares the account, and again once the owner is enabled', async () => {
    const { mailSync } = (await testContext()).services;
    const colleague = await createUser();
    await share(account.id, colleague);
    const [claimed] = await mailSync.runDueAccounts({ accountIds: [account.id] });
    expect(claimed?.accountId).to.equal(account.id);
    expect(claimed?.outcome).not.to.equal('skipped');

    // A colleague who left as well does not keep it going.
    await colleague.user.update({ disabledAt: new Date() });
    expect((await mailSync.syncAccount(account.id)).outcome).to.equal('skipped');

    await leaver.user.update({ disabledAt: null });
    expect((await mailSync.syncAccount(account.id)).outcome).not.to.equal('skipped');
  });
});
