import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { AuditActions } from '../../src/audit/audit-service.js';
import { AuditLog, EmailAccount } from '../../src/models/index.js';
import { createUser, uniqueName } from '../support/factories.js';
import { testContext } from '../support/harness.js';
import { cli, cliJson } from './cli-helpers.js';

describe('crm-admin email-accounts', function () {
  this.timeout(120_000);

  it('attach: validates against the mail server, stores the first account as primary, audits with the CLI actor', async () => {
    const owner = await createUser({ role: 'member' });
    const out = await cliJson(['email-accounts', 'attach', owner.username, '--email', 'bob@example.test', '--password-stdin'], 'bobpw\n');
    expect(out.emailAccount).to.include({ email: 'bob@example.test', isPrimary: true, userId: owner.user.id, username: owner.username });
    expect(JSON.stringify(out)).not.to.contain('bobpw');
    const second = await cliJson(['email-accounts', 'attach', owner.username, '--email', 'alice@example.test', '--password', 'alicepw']);
    expect(second.emailAccount.isPrimary).to.equal(false);
    const ctx = await testContext();
    const stored = await ctx.services.emailAccounts.get(owner.user.id, out.emailAccount.id);
    expect(ctx.services.emailAccounts.credentialsOf(stored).password).to.equal('bobpw');
    const records = await AuditLog.findAll({ where: { action: AuditActions.emailAccountAttached, userId: owner.user.id } });
    expect(records).to.have.length(2);
    for (const r of records) expect(r.actor).to.match(/^cli:.+/);
    // The sync an attach asks for is left to the serving instances (their next tick takes a requested
    // account): marked requested, not run by the command, whose process exits right after.
    const [state] = await ctx.db.sequelize.query<{ requested: boolean; attempted: boolean }>(
      'SELECT requested_at IS NOT NULL AS requested, last_attempt_at IS NOT NULL AS attempted FROM mail_sync_states WHERE email_account_id = $1',
      { bind: [out.emailAccount.id], type: QueryTypes.SELECT },
    );
    expect(state).to.deep.equal({ requested: true, attempted: false });
  });

  it('attach: wrong credentials store nothing (exit 1); a duplicate is a conflict (exit 1)', async () => {
    const owner = await createUser({ role: 'member' });
    const wrong = await cli(['email-accounts', 'attach', owner.username, '--email', 'bob@example.test', '--password-stdin'], 'nope\n');
    expect(wrong.status).to.equal(1);
    expect(wrong.stderr).to.contain('Nesprávny email alebo heslo');
    expect(await EmailAccount.count({ where: { userId: owner.user.id } })).to.equal(0);
    await cliJson(['email-accounts', 'attach', owner.username, '--email', 'bob@example.test', '--password-stdin'], 'bobpw');
    const dup = await cli(['email-accounts', 'attach', owner.username, '--email', 'BOB@example.test', '--password-stdin'], 'bobpw');
    expect(dup.status).to.equal(1);
    expect(dup.stderr).to.contain('už pripojený');
  });

  it('attach: usage errors exit 2, an unknown user and a bad address exit 1', async () => {
    const owner = await createUser({ role: 'member' });
    expect((await cli(['email-accounts', 'attach', owner.username, '--email', 'bob@example.test'])).status).to.equal(2);
    expect((await cli(['email-accounts', 'attach', owner.username, '--password', 'bobpw'])).status).to.equal(2);
    expect((await cli(['email-accounts', 'attach', owner.username, '--email', 'bob@example.test', '--password', 'x', '--password-stdin'], 'x')).status).to.equal(2);
    expect((await cli(['mail-accounts', 'attach', uniqueName('ghost'), '--email', 'bob@example.test', '--password', 'bobpw'])).status).to.equal(1);
    expect((await cli(['email-accounts', 'attach', owner.username, '--email', 'not-an-address', '--password', 'bobpw'])).status).to.equal(1);
  });

  it("list: one user's accounts, or everyone's, never with a password", async () => {
    const owner = await createUser({ role: 'member' });
    const ctx = await testContext();
    // No sync of it runs meanwhile in this process (the server): the list shows an account never synced.
    const account = await ctx.services.emailAccounts.add(owner.user.id, { email: 'alice@example.test', emailPassword: 'alicepw' }, { actor: 'test' }, { requestSync: false });
    const mine = await cliJson(['email-accounts', 'list', owner.username]);
    expect(mine.items).to.have.length(1);
    expect(mine.items[0]).to.include({ id: account.id, email: 'alice@example.test', username: owner.username, isPrimary: true });
    expect(mine.items[0].sync.status).to.equal('idle');
    expect(JSON.stringify(mine)).not.to.match(/alicepw|emailPassword/);
    const all = await cliJson(['email-accounts', 'list']);
    expect(all.items.map((a: { id: string }) => a.id)).to.include(account.id);
    const table = await cli(['email-accounts', 'list', owner.username]);
    expect(table.stdout).to.match(/^ID\s+USER\s+EMAIL\s+PRIMARY\s+ACTIVE\s+SYNC\s+LAST SUCCESS$/m);
    expect(table.stdout).to.contain(account.id);
    expect((await cli(['email-accounts', 'list', uniqueName('ghost')])).status).to.equal(1);
  });

  it('remove: asks first (refuses without a terminal), then removes and the next account becomes primary', async () => {
    const owner = await createUser({ role: 'member' });
    const ctx = await testContext();
    const first = await ctx.services.emailAccounts.add(owner.user.id, { email: 'alice@example.test', emailPassword: 'alicepw' }, { actor: 'test' });
    const second = await ctx.services.emailAccounts.add(owner.user.id, { email: 'bob@example.test', emailPassword: 'bobpw' }, { actor: 'test' });
    const refused = await cli(['mail-accounts', 'remove', first.id]);
    expect(refused.status).to.equal(2);
    expect(await EmailAccount.findByPk(first.id)).not.to.equal(null);

    const out = await cliJson(['mail-accounts', 'remove', first.id, '--yes']);
    expect(out.removed).to.deep.equal({ id: first.id, email: 'alice@example.test', username: owner.username });
    expect(await EmailAccount.findByPk(first.id)).to.equal(null);
    expect((await EmailAccount.findByPk(second.id))!.isPrimary).to.equal(true);
    const record = await AuditLog.findOne({ where: { action: AuditActions.emailAccountRemoved, userId: owner.user.id } });
    expect(record?.actor).to.match(/^cli:.+/);
  });

  it('remove: a malformed or unknown id exits 1, a missing one exits 2', async () => {
    expect((await cli(['mail-accounts', 'remove', 'not-a-uuid', '--yes'])).status).to.equal(1);
    const unknown = await cli(['mail-accounts', 'remove', '00000000-0000-4000-8000-000000000000', '--yes']);
    expect(unknown.status).to.equal(1);
    expect(unknown.stderr).to.contain('Emailový účet neexistuje');
    expect((await cli(['mail-accounts', 'remove'])).status).to.equal(2);
  });
});
