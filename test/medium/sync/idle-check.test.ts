import { expect } from 'chai';
import type { AppContext } from '../../../src/app/context.js';
import type { SyncService } from '../../../src/sync/sync-service.js';
import { startCountingProxy, type CountingProxy } from '../../support/counting-proxy.js';
import { testContext } from '../../support/harness.js';
import { testJmapSessionUrl } from '../../support/imap.js';
import { crmUser, freshMailUser, otherSyncService, put, storedEmails, type MailUser } from '../../sync/helpers.js';

/**
 * What polling costs the mail server, counted on the wire by a proxy in front of Cyrus: an account
 * with nothing new costs exactly one HTTP request per check, and one with new mail fetches only that.
 */
describe('mail sync: the cost of a check', function () {
  this.timeout(60_000);
  let proxy: CountingProxy;
  let ctx: AppContext;
  let mail: MailUser;
  let accountId: string;
  let sync: SyncService;

  /** Its turn has come (as the schedule would make it), without waiting for it. */
  const makeDue = () => ctx.db.sequelize.query('UPDATE mail_sync_states SET next_sync_at = now() WHERE email_account_id = $1', { bind: [accountId] });
  const check = async () => {
    await makeDue();
    const results = await sync.runDueAccounts({ accountIds: [accountId] });
    expect(results, JSON.stringify(results)).to.have.length(1);
    return results[0];
  };

  before(async () => {
    proxy = await startCountingProxy(testJmapSessionUrl());
    // A context whose JMAP clients go through the proxy; same database as every other test.
    ctx = await testContext({ JMAP_SESSION_URL: proxy.sessionUrl });
    mail = await freshMailUser('idle');
    for (let i = 1; i <= 3; i++) await put(mail, 'INBOX', { from: `sender${i}@customer.example`, to: mail.user, subject: `Hello ${i}`, body: `Body ${i}` });
    const owner = await crmUser();
    accountId = (await ctx.services.emailAccounts.add(owner.fixture.user.id, { email: mail.user, emailPassword: mail.pass }, { actor: 'test' }, { requestSync: false })).id;
    sync = otherSyncService(ctx, { intervalSeconds: 60 });
    const first = await check();
    expect(first).to.include({ outcome: 'ok', mode: 'full', stored: 3 });
    // Nothing arrived while it paged (its last page was read in the state it started from): no
    // catch-up request for changes after the pages.
    expect(proxy.requests.filter((r) => r.method === 'POST').map((r) => r.calls)).to.deep.equal([
      ['Mailbox/get', 'Email/get'],
      ['Email/query', 'Email/get'],
    ]);
  });

  after(async () => {
    await sync?.shutdown();
    await proxy?.close();
  });

  it('an account with no changes costs exactly one HTTP request per check: changes and mailboxes together', async () => {
    for (let i = 0; i < 3; i++) {
      proxy.reset();
      const result = await check();
      expect(result).to.include({ outcome: 'ok', mode: 'incremental', fetched: 0, requests: 1 });
      expect(proxy.requests.map((r) => [r.user, r.method, r.calls])).to.deep.equal([[mail.user, 'POST', ['Mailbox/get', 'Email/changes', 'Email/get', 'Email/get']]]);
    }
  });

  it('an account with new mail fetches only that, in the same one request', async () => {
    await put(mail, 'INBOX', { from: 'newcomer@customer.example', to: mail.user, subject: 'Fresh', body: 'Just arrived' });
    proxy.reset();
    const result = await check();
    expect(result).to.include({ outcome: 'ok', mode: 'incremental', fetched: 1, stored: 1, emailsCreated: 1, requests: 1 });
    expect(proxy.countFor(mail.user)).to.equal(1);
    expect((await storedEmails(ctx, accountId)).map((e) => e.subject)).to.include('Fresh');

    // And back to one request once it is idle again.
    proxy.reset();
    expect(await check()).to.include({ outcome: 'ok', fetched: 0, requests: 1 });
    expect(proxy.countFor(mail.user)).to.equal(1);
  });

  it('an account that is not due costs nothing', async () => {
    proxy.reset();
    // Its next turn is a whole interval away after the check above.
    expect(await sync.runDueAccounts({ accountIds: [accountId] })).to.deep.equal([]);
    expect(proxy.requests).to.deep.equal([]);
  });
});
