import fs from 'node:fs';
import { expect } from 'chai';
import { AuditActions } from '../../src/audit/audit-service.js';
import { AuditLog, Timesheet } from '../../src/models/index.js';
import { createUser, uniqueName } from '../support/factories.js';
import { testContext } from '../support/harness.js';
import { cli, cliJson, storeTimesheet } from './cli-helpers.js';

describe('crm-admin timesheets purge', function () {
  this.timeout(120_000);

  async function ownerWithSheets() {
    const owner = await createUser({ role: 'member' });
    const old1 = await storeTimesheet(owner.user.id, 2019, 12, 1500);
    const old2 = await storeTimesheet(owner.user.id, 2020, 1, 2500);
    const current = await storeTimesheet(owner.user.id, 2020, 2, 1000);
    return { owner, old: [old1, old2], current };
  }

  async function stillThere(sheets: Array<{ timesheet: Timesheet; file: string }>) {
    for (const s of sheets) {
      expect(await Timesheet.findByPk(s.timesheet.id), s.timesheet.id).not.to.equal(null);
      expect(fs.existsSync(s.file), s.file).to.equal(true);
    }
  }

  it('--dry-run reports how many files and bytes would go, and changes nothing', async () => {
    const { owner, old, current } = await ownerWithSheets();
    const out = await cliJson(['timesheets', 'purge', '--before', '2020-02', '--user', owner.username, '--dry-run']);
    expect(out).to.deep.equal({ before: '2020-02', username: owner.username, dryRun: true, count: 2, bytes: 4000 });
    const text = await cli(['timesheets', 'purge', '--before', '2020-02', '--user', owner.username, '--dry-run']);
    expect(text.status).to.equal(0);
    expect(text.stdout).to.contain('Would delete 2 timesheet file(s)');
    expect(text.stdout).to.contain('3.9 KiB');
    await stillThere([...old, current]);
    expect(await AuditLog.count({ where: { action: AuditActions.timesheetPurge, details: { targetUserId: owner.user.id } } })).to.equal(0);
  });

  it('refuses without --yes when there is no terminal, and deletes nothing', async () => {
    const { owner, old, current } = await ownerWithSheets();
    const res = await cli(['timesheets', 'purge', '--before', '2020-02', '--user', owner.username]);
    expect(res.status).to.equal(2);
    expect(res.stderr).to.contain('--yes');
    await stillThere([...old, current]);
  });

  it('with --yes deletes the rows and files of earlier periods only, and audits the purge', async () => {
    const { owner, old, current } = await ownerWithSheets();
    const out = await cliJson(['timesheets', 'purge', '--before', '2020-02', '--user', owner.username, '--yes']);
    expect(out).to.deep.equal({ before: '2020-02', username: owner.username, dryRun: false, count: 2, bytes: 4000 });
    for (const s of old) {
      expect(await Timesheet.findByPk(s.timesheet.id)).to.equal(null);
      expect(fs.existsSync(s.file)).to.equal(false);
    }
    await stillThere([current]);
    const record = await AuditLog.findOne({ where: { action: AuditActions.timesheetPurge, details: { targetUserId: owner.user.id } } });
    expect(record?.actor).to.match(/^cli:.+/);
    expect(record?.details).to.deep.include({ before: '2020-02', count: 2, bytes: 4000 });
    const again = await cli(['timesheets', 'purge', '--before', '2020-02', '--user', owner.username, '--yes']);
    expect(again.stdout).to.contain('Nothing to delete');
  });

  it('answers a malformed month and an unknown user with exit 1, a missing --before with exit 2', async () => {
    for (const before of ['2020-13', '2020-1', 'last-year', '1999-12']) {
      const res = await cli(['timesheets', 'purge', '--before', before, '--dry-run']);
      expect(res.status, before).to.equal(1);
    }
    expect((await cli(['timesheets', 'purge', '--before', '2020-01', '--user', uniqueName('ghost'), '--dry-run'])).status).to.equal(1);
    expect((await cli(['timesheets', 'purge', '--dry-run'])).status).to.equal(2);
  });
});

describe('crm-admin audit list', function () {
  this.timeout(120_000);

  it("lists a user's records newest first, with filters, as JSON and as a table", async () => {
    const target = await createUser({ role: 'member' });
    const ctx = await testContext();
    await ctx.services.userAdmin.update(target.user.id, { role: 'admin' }, { actor: 'user:someone' });
    await ctx.services.userAdmin.update(target.user.id, { firstName: 'Zmena' }, { actor: 'user:someone' });
    await ctx.services.audit.record({ action: 'auth.login_attempt', userId: target.user.id, username: target.username, success: false }, { actor: 'anonymous' });

    const all = await cliJson(['audit', 'list', '--user', target.username]);
    expect(all.items.map((r: { action: string }) => r.action)).to.deep.equal(['auth.login_attempt', AuditActions.userUpdated, AuditActions.roleChanged, AuditActions.userCreated]);
    expect(all.pagination).to.deep.equal({ page: 1, limit: 50, total: 4, totalExact: true, hasNext: false });
    expect(all.items[2]).to.include({ actor: 'user:someone', success: true, userId: target.user.id });

    const admin = await cliJson(['audit', 'list', '--user', target.username, '--action', 'admin.*', '--limit', '2']);
    expect(admin.items.map((r: { action: string }) => r.action)).to.deep.equal([AuditActions.userUpdated, AuditActions.roleChanged]);
    expect(admin.pagination.total).to.equal(3);

    const failed = await cliJson(['audit', 'list', '--user', target.username, '--success', 'false']);
    expect(failed.items.map((r: { action: string }) => r.action)).to.deep.equal(['auth.login_attempt']);

    const future = await cliJson(['audit', 'list', '--user', target.username, '--since', '2999-01-01']);
    expect(future.items).to.deep.equal([]);
    const past = await cliJson(['audit', 'list', '--user', target.username, '--until', '2000-01-01T00:00:00Z']);
    expect(past.items).to.deep.equal([]);

    const table = await cli(['audit', 'list', '--user', target.username]);
    expect(table.status).to.equal(0);
    expect(table.stdout).to.match(/^TIME\s+ACTION\s+OK\s+USER\s+ACTOR\s+IP\s+DETAILS$/m);
    expect(table.stdout).to.match(/admin\.role_changed\s+yes\s+\S+\s+user:someone/);
    expect(table.stdout).to.contain('4 of 4');
  });

  it('keeps finding the records of a deleted user by name', async () => {
    const target = await createUser({ role: 'member' });
    const ctx = await testContext();
    await ctx.services.userAdmin.delete(target.user.id, { actor: 'user:someone' });
    const out = await cliJson(['audit', 'list', '--user', target.username]);
    expect(out.items.map((r: { action: string }) => r.action)).to.deep.equal([AuditActions.userDeleted, AuditActions.userCreated]);
  });

  it('answers bad filters: invalid dates exit 1, an invalid --success or --limit exits 2', async () => {
    expect((await cli(['audit', 'list', '--since', 'yesterday'])).status).to.equal(1);
    expect((await cli(['audit', 'list', '--since', '2024-05-02', '--until', '2024-05-01'])).status).to.equal(1);
    expect((await cli(['audit', 'list', '--success', 'maybe'])).status).to.equal(2);
    expect((await cli(['audit', 'list', '--limit', '0'])).status).to.equal(2);
  });
});
