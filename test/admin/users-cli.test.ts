import fs from 'node:fs';
import { expect } from 'chai';
import { AuditActions } from '../../src/audit/audit-service.js';
import { AuditLog, EmailAccount, Session, Timesheet, User } from '../../src/models/index.js';
import { sessionFor } from '../support/auth.js';
import { createUser, uniqueName } from '../support/factories.js';
import { testContext } from '../support/harness.js';
import { cli, cliJson, storeTimesheet } from './cli-helpers.js';

const CLI_ACTOR = /^cli:.+/;

describe('crm-admin users', function () {
  this.timeout(120_000);

  describe('users create', () => {
    it('creates a user with a verified primary email account, the password read from stdin', async () => {
      const username = uniqueName('cmail');
      const out = await cliJson(['users', 'create', '--username', username, '--email', 'alice@example.test', '--email-password-stdin'], 'alicepw\n');
      expect(out.user).to.include({ username, role: 'member', changedPassword: false });
      expect(out.temporaryPassword).to.match(/^[A-Za-z0-9]{12,}$/);
      expect(out.emailAccount).to.include({ email: 'alice@example.test', isPrimary: true, isActive: true });
      expect(JSON.stringify(out)).not.to.contain('alicepw');
      const ctx = await testContext();
      const [account] = await ctx.services.emailAccounts.list(out.user.id);
      // Encrypted with the app's key: the API process can read what the CLI stored.
      expect(ctx.services.emailAccounts.credentialsOf(account).password).to.equal('alicepw');
      for (const action of [AuditActions.userCreated, AuditActions.emailAccountAttached]) {
        const record = await AuditLog.findOne({ where: { action, userId: out.user.id } });
        expect(record?.actor, action).to.match(CLI_ACTOR);
      }
    });

    it('also takes the mail password as a flag, and prints a readable summary without --json', async () => {
      const username = uniqueName('cflag');
      const res = await cli(['users', 'create', '--username', username, '--role', 'admin', '--email', 'bob@example.test', '--email-password', 'bobpw']);
      expect(res.status, res.stderr).to.equal(0);
      expect(res.stdout).to.contain(`Created admin "${username}"`);
      expect(res.stdout).to.contain('Primary email account bob@example.test attached');
      expect(res.stdout).to.match(/Temporary password \(shown once, valid \d+ days\): [A-Za-z0-9]{12,}/);
    });

    it('creates no user when the mail credentials are wrong (exit 1, message on stderr)', async () => {
      const username = uniqueName('cbad');
      const res = await cli(['users', 'create', '--username', username, '--email', 'alice@example.test', '--email-password-stdin'], 'wrong\n');
      expect(res.status).to.equal(1);
      expect(res.stderr).to.contain('Nesprávny email alebo heslo k emailovému účtu');
      expect(res.stdout).to.equal('');
      expect(await (await testContext()).services.users.findByUsername(username)).to.equal(null);
    });

    it('with --json and wrong mail credentials: one JSON document, and the refusal audited as the CLI actor\'s (issue 34)', async () => {
      const username = uniqueName('cjbad');
      const res = await cli(['users', 'create', '--username', username, '--email', 'alice@example.test', '--email-password-stdin', '--json'], 'wrong\n');
      expect(res.status).to.equal(1);
      const output = `${res.stdout}${res.stderr}`.trim();
      // Exactly one JSON document in all the output (no "audit write failed" log line beside the error).
      const parsed = JSON.parse(output) as { error?: { code?: string } };
      expect(parsed.error?.code).to.equal('mail_credentials_rejected');
      expect(await (await testContext()).services.users.findByUsername(username)).to.equal(null);
      const records = await AuditLog.findAll({ where: { action: AuditActions.emailCredentialsRejected }, order: [['id', 'DESC']], limit: 5 });
      const record = records.find((r) => (r.details as { forUsername?: string }).forUsername === username);
      expect(record, 'the refusal is recorded').to.exist;
      expect(record!.actor).to.match(CLI_ACTOR);
      expect(record!.userId).to.equal(null);
    });

    it('answers usage errors with exit 2 and creates nothing', async () => {
      const username = uniqueName('cusage');
      const cases = [
        ['users', 'create'],
        ['users', 'create', '--username', username, '--role', 'owner'],
        ['users', 'create', '--username', username, '--email', 'alice@example.test'],
        ['users', 'create', '--username', username, '--email-password', 'alicepw'],
        ['users', 'create', '--username', username, '--email', 'a@b.c', '--email-password', 'x', '--email-password-stdin'],
      ];
      for (const args of cases) {
        const res = await cli(args);
        expect(res.status, args.join(' ')).to.equal(2);
        expect(res.stderr).not.to.equal('');
      }
      expect(await (await testContext()).services.users.findByUsername(username)).to.equal(null);
    });

    it('answers invalid values with exit 1 and the field problems', async () => {
      const res = await cli(['users', 'create', '--username', 'a b']);
      expect(res.status).to.equal(1);
      expect(res.stderr).to.contain('Používateľské meno môže obsahovať');
    });
  });

  describe('users list', () => {
    let tag: string;
    before(async () => {
      tag = uniqueName('lst');
      await createUser({ username: `${tag}-a`, role: 'admin', temporary: true });
      await createUser({ username: `${tag}-b`, role: 'member' });
      await createUser({ username: `${tag}-c`, role: 'member' });
    });

    it('filters by search text and role, with the list shape of the API in --json', async () => {
      const all = await cliJson(['users', 'list', '--search', tag.toUpperCase()]);
      expect(all.pagination).to.deep.equal({ page: 1, limit: 50, total: 3, totalExact: true, hasNext: false });
      expect(all.items.map((u: { username: string }) => u.username)).to.deep.equal([`${tag}-a`, `${tag}-b`, `${tag}-c`]);
      const admins = await cliJson(['users', 'list', '--search', tag, '--role', 'admin']);
      expect(admins.items.map((u: { username: string }) => u.username)).to.deep.equal([`${tag}-a`]);
      const paged = await cliJson(['users', 'list', '--search', tag, '--limit', '2', '--page', '2']);
      expect(paged.pagination).to.deep.equal({ page: 2, limit: 2, total: 3, totalExact: true, hasNext: false });
      expect(paged.items).to.have.length(1);
    });

    it('prints a table for people', async () => {
      const res = await cli(['users', 'list', '--search', tag]);
      expect(res.status, res.stderr).to.equal(0);
      const lines = res.stdout.trim().split('\n');
      expect(lines[0]).to.match(/^USERNAME\s+ROLE\s+NAME\s+ONBOARDED\s+LAST LOGIN\s+DISABLED\s+ID$/);
      expect(lines[2]).to.match(new RegExp(`^${tag}-a\\s+admin\\s+Test User\\s+no\\s+-\\s+no\\s+[0-9a-f-]{36}$`));
      expect(res.stdout).to.contain('1-3 of 3');
    });

    it('rejects an unknown role and a limit above 100 as usage errors (exit 2)', async () => {
      expect((await cli(['users', 'list', '--role', 'owner'])).status).to.equal(2);
      expect((await cli(['users', 'list', '--limit', '101'])).status).to.equal(2);
    });
  });

  describe('users reset-password', () => {
    it('refuses without --yes when there is no terminal, and changes nothing', async () => {
      const target = await createUser({ role: 'member', password: 'own-password-1234' });
      const s = await sessionFor(target);
      const before = (await User.findByPk(target.user.id))!;
      const res = await cli(['users', 'reset-password', target.username]);
      expect(res.status).to.equal(2);
      expect(res.stderr).to.contain('--yes');
      const after = (await User.findByPk(target.user.id))!;
      expect(after.password).to.equal(before.password);
      expect(after.tempPassword).to.equal(before.tempPassword);
      expect(after.changedPassword).to.equal(true);
      expect((await Session.findByPk(s.sessionId))!.revokedAt).to.equal(null);
    });

    it('prints a new temporary password once, revokes every session and audits with the CLI actor', async () => {
      const target = await createUser({ role: 'member', password: 'own-password-1234' });
      const s = await sessionFor(target);
      const out = await cliJson(['users', 'reset-password', target.username.toUpperCase(), '--yes']);
      expect(out.user).to.include({ id: target.user.id, changedPassword: false });
      const ctx = await testContext();
      const user = (await User.findByPk(target.user.id))!;
      expect(await ctx.services.hasher.verify(out.temporaryPassword, user.tempPassword)).to.equal(true);
      expect(user.password).to.equal(null);
      expect((await Session.findByPk(s.sessionId))!.revokedAt).to.be.instanceOf(Date);
      const record = await AuditLog.findOne({ where: { action: AuditActions.tempPasswordReset, userId: target.user.id } });
      expect(record?.actor).to.match(CLI_ACTOR);
    });

    it('answers an unknown user with exit 1', async () => {
      const res = await cli(['users', 'reset-password', uniqueName('ghost'), '--yes']);
      expect(res.status).to.equal(1);
      expect(res.stderr).to.contain('Používateľ neexistuje');
    });
  });

  describe('users set-role', () => {
    it('changes the role and audits old and new', async () => {
      const target = await createUser({ role: 'member' });
      const out = await cliJson(['users', 'set-role', target.username, 'admin']);
      expect(out.previousRole).to.equal('member');
      expect(out.user.role).to.equal('admin');
      const record = await AuditLog.findOne({ where: { action: AuditActions.roleChanged, userId: target.user.id } });
      expect(record?.details).to.deep.equal({ from: 'member', to: 'admin' });
      expect(record?.actor).to.match(CLI_ACTOR);
      const text = await cli(['users', 'set-role', target.username, 'admin']);
      expect(text.stdout).to.contain('is already admin');
    });

    it('answers a bad or missing role with exit 2 and an unknown user with exit 1', async () => {
      const target = await createUser({ role: 'member' });
      expect((await cli(['users', 'set-role', target.username, 'owner'])).status).to.equal(2);
      expect((await cli(['users', 'set-role', target.username])).status).to.equal(2);
      expect((await cli(['users', 'set-role', uniqueName('ghost'), 'admin'])).status).to.equal(1);
      expect((await User.findByPk(target.user.id))!.role).to.equal('member');
    });
  });

  describe('users delete', () => {
    it('refuses without --yes when there is no terminal, and deletes nothing', async () => {
      const target = await createUser({ role: 'member' });
      const { file } = await storeTimesheet(target.user.id, 2021, 3);
      const res = await cli(['users', 'delete', target.username]);
      expect(res.status).to.equal(2);
      expect(await User.findByPk(target.user.id)).not.to.equal(null);
      expect(fs.existsSync(file)).to.equal(true);
    });

    it('deletes the user with their email accounts, timesheet rows and files', async () => {
      const target = await createUser({ role: 'member' });
      const ctx = await testContext();
      const account = await ctx.services.emailAccounts.add(target.user.id, { email: 'bob@example.test', emailPassword: 'bobpw' }, { actor: 'test' });
      const sheets = [await storeTimesheet(target.user.id, 2021, 3), await storeTimesheet(target.user.id, 2021, 4)];
      const out = await cliJson(['users', 'delete', target.username, '--yes']);
      // Nothing of it was shared with anyone: no shared account to hand over or delete.
      expect(out).to.deep.equal({ deleted: { id: target.user.id, username: target.username }, handedOver: [], deletedSharedAccounts: [] });
      expect(await User.findByPk(target.user.id)).to.equal(null);
      expect(await EmailAccount.findByPk(account.id)).to.equal(null);
      expect(await Timesheet.count({ where: { userId: target.user.id } })).to.equal(0);
      for (const { file } of sheets) expect(fs.existsSync(file), file).to.equal(false);
      const record = await AuditLog.findOne({ where: { action: AuditActions.userDeleted, username: target.username } });
      expect(record?.actor).to.match(CLI_ACTOR);
      expect(record?.details).to.deep.include({ userId: target.user.id, timesheets: { count: 2, bytes: sheets.reduce((n, s) => n + s.timesheet.fileSize, 0) } });
    });

    it('answers an unknown user with exit 1 and a missing argument with exit 2', async () => {
      expect((await cli(['users', 'delete', uniqueName('ghost'), '--yes'])).status).to.equal(1);
      expect((await cli(['users', 'delete', '--yes'])).status).to.equal(2);
    });
  });
});
