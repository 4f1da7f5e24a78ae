import { expect } from 'chai';
import { EmailAccount } from '../../src/models/index.js';
import { createUser, uniqueName } from '../support/factories.js';
import { testContext } from '../support/harness.js';
import { cli, cliJson, freshDatabase } from './cli-helpers.js';

describe('crm-admin sync', function () {
  this.timeout(180_000);

  async function ownerWithAccount(email = 'alice@example.test', password = 'alicepw') {
    const owner = await createUser({ role: 'member' });
    const ctx = await testContext();
    const account = await ctx.services.emailAccounts.add(owner.user.id, { email, emailPassword: password }, { actor: 'test' }, { requestSync: false });
    return { owner, account };
  }

  it("status: one user's accounts as JSON and as a table, without credentials", async () => {
    const { owner, account } = await ownerWithAccount();
    const out = await cliJson(['sync', 'status', owner.username]);
    expect(out.items).to.have.length(1);
    expect(out.items[0]).to.include({ accountId: account.id, username: owner.username, email: 'alice@example.test', status: 'idle', running: false });
    expect(JSON.stringify(out)).not.to.contain('alicepw');
    const table = await cli(['sync', 'status', owner.username]);
    expect(table.stdout).to.match(/^ACCOUNT\s+USER\s+EMAIL\s+STATUS\s+LEASE HOLDER\s+LEASE UNTIL\s+LAST SUCCESS\s+FAILURES\s+NEXT ATTEMPT\s+LAST ERROR$/m);
    expect(table.stdout).to.contain(account.id);
    expect((await cli(['sync', 'status', uniqueName('ghost')])).status).to.equal(1);
  });

  it('run --account: syncs that account now and records the success', async () => {
    const { owner, account } = await ownerWithAccount();
    const out = await cliJson(['sync', 'run', '--account', account.id]);
    expect(out.results).to.have.length(1);
    expect(out.results[0]).to.include({ accountId: account.id, email: 'alice@example.test', outcome: 'ok', mode: 'full' });
    const status = await cliJson(['sync', 'status', owner.username]);
    expect(status.items[0].status).to.equal('ok');
    expect(status.items[0].lastSuccessAt).to.be.a('string');
  });

  it('run --account: wrong stored credentials end in auth_failed, reported with exit 1', async () => {
    const { owner, account } = await ownerWithAccount('bob@example.test', 'bobpw');
    const ctx = await testContext();
    await EmailAccount.update({ emailPassword: ctx.services.emailAccounts.sealPassword(account.id, 'changed-on-the-server') }, { where: { id: account.id } });
    const res = await cli(['sync', 'run', '--account', account.id, '--json']);
    expect(res.status).to.equal(1);
    expect(JSON.parse(res.stdout).results[0]).to.include({ accountId: account.id, outcome: 'auth_failed' });
    expect(res.stderr).to.contain('Synchronizácia zlyhala pre 1 účet(y)');
    const status = await cliJson(['sync', 'status', owner.username]);
    expect(status.items[0].status).to.equal('auth_failed');
  });

  it('run: usage errors exit 2; an unknown or malformed account id exits 1', async () => {
    expect((await cli(['sync', 'run'])).status).to.equal(2);
    expect((await cli(['sync', 'run', '--all', '--account', '00000000-0000-4000-8000-000000000000'])).status).to.equal(2);
    expect((await cli(['sync', 'run', '--account', '00000000-0000-4000-8000-000000000000', '--include-auth-failed'])).status).to.equal(2);
    expect((await cli(['sync', 'run', '--account', 'nope'])).status).to.equal(1);
    const unknown = await cli(['sync', 'run', '--account', '00000000-0000-4000-8000-000000000000']);
    expect(unknown.status).to.equal(1);
    expect(unknown.stderr).to.contain('Emailový účet neexistuje');
  });

  describe('run --all (on a database of its own, so that "all" is known)', () => {
    let env: Record<string, string>;
    let drop: (() => Promise<void>) | undefined;
    before(async () => {
      ({ env, drop } = await freshDatabase('crm_sync_all'));
    });
    after(async () => drop?.());

    it('syncs every active account', async () => {
      await cliJson(['users', 'create', '--username', 'syncer', '--email', 'alice@example.test', '--email-password-stdin'], 'alicepw', env);
      await cliJson(['mail-accounts', 'attach', 'syncer', '--email', 'bob@example.test', '--password-stdin'], 'bobpw', env);
      const out = await cliJson(['sync', 'run', '--all'], undefined, env);
      expect(out.results.map((r: { email: string }) => r.email).sort()).to.deep.equal(['alice@example.test', 'bob@example.test']);
      for (const r of out.results) expect(r.outcome, JSON.stringify(r)).to.equal('ok');
    });
  });
});
