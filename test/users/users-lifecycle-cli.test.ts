import { expect } from 'chai';
import { AuditActions } from '../../src/audit/audit-service.js';
import { AuditLog, Session } from '../../src/models/index.js';
import { cli, cliJson } from '../admin/cli-helpers.js';
import { sessionFor } from '../support/auth.js';
import { createUser, type UserFixture } from '../support/factories.js';
import { testContext } from '../support/harness.js';

const CLI_ACTOR = /^cli:.+/;

describe('crm-admin users disable, enable, sessions, logout', function () {
  this.timeout(120_000);
  let user: UserFixture;

  beforeEach(async () => {
    user = await createUser();
  });

  const openSessions = () => Session.count({ where: { userId: user.user.id, revokedAt: null } });

  it('disable: asks first (no terminal and no --yes: exit 2, nothing changes)', async () => {
    await sessionFor(user);
    const res = await cli(['users', 'disable', user.username]);
    expect(res.status).to.equal(2);
    expect(res.stderr).to.contain('--yes');
    await user.user.reload();
    expect(user.user.disabledAt).to.equal(null);
    expect(await openSessions()).to.equal(1);
  });

  it('disable --yes ends the sessions, shows in users list, and enable undoes it; both audited with the CLI actor', async () => {
    await sessionFor(user);
    await sessionFor(user);
    const out = await cliJson(['users', 'disable', user.username, '--yes']);
    expect(out).to.include({ changed: true, revokedSessions: 2 });
    expect(out.user.disabledAt).to.be.a('string');
    expect(await openSessions()).to.equal(0);
    const listed = (await cliJson(['users', 'list', '--search', user.username])).items[0];
    expect(listed.disabledAt).to.equal(out.user.disabledAt);
    const table = await cli(['users', 'list', '--search', user.username]);
    expect(table.stdout).to.match(/DISABLED/);
    expect(table.stdout).to.contain(out.user.disabledAt.replace(/\.\d{3}Z$/, 'Z'));

    const again = await cli(['users', 'disable', user.username, '--yes']);
    expect(again.status).to.equal(0);
    expect(again.stdout).to.contain('already disabled');

    const enabled = await cliJson(['users', 'enable', user.username]);
    expect(enabled.changed).to.equal(true);
    expect(enabled.user.disabledAt).to.equal(null);
    for (const action of [AuditActions.userDisabled, AuditActions.userEnabled]) {
      const record = await AuditLog.findOne({ where: { action, userId: user.user.id } });
      expect(record?.actor, action).to.match(CLI_ACTOR);
    }
  });

  it('unknown users: exit 1 with not found', async () => {
    for (const command of ['disable', 'enable', 'sessions', 'logout']) {
      const res = await cli(['users', command, 'no-such-user-xyz', '--yes']);
      expect(res.status, command).to.equal(1);
      expect(res.stderr).to.contain('Používateľ neexistuje');
    }
  });

  it('sessions lists the open sessions without tokens; logout ends them all', async () => {
    const ctx = await testContext();
    const first = await ctx.services.sessions.create(user.user, { rememberMe: true }, { actor: 'test', ip: '192.0.2.7', userAgent: 'Test Browser 1.0' });
    await sessionFor(user);
    const listed = await cliJson(['users', 'sessions', user.username]);
    expect(listed.username).to.equal(user.username);
    expect(listed.sessions).to.have.length(2);
    expect(listed.sessions.find((s: { id: string }) => s.id === first.session.id)).to.include({ ip: '192.0.2.7', userAgent: 'Test Browser 1.0', rememberMe: true, current: false });
    expect(JSON.stringify(listed)).not.to.contain(first.accessToken);
    expect(JSON.stringify(listed)).not.to.match(/hash|jti/i);
    expect((await cli(['users', 'sessions', user.username])).stdout).to.contain('Test Browser 1.0');

    expect((await cli(['users', 'logout', user.username])).status).to.equal(2);
    expect(await openSessions()).to.equal(2);
    const out = await cliJson(['users', 'logout', user.username, '--yes']);
    expect(out).to.deep.equal({ username: user.username, revokedSessions: 2 });
    expect(await openSessions()).to.equal(0);
    expect(await ctx.services.sessions.activeSession(first.session.id, user.user.id)).to.equal(null);
    const record = await AuditLog.findOne({ where: { action: AuditActions.userLoggedOut, userId: user.user.id } });
    expect(record?.details).to.include({ revokedSessions: 2 });
    expect((await cli(['users', 'sessions', user.username])).stdout).to.contain('no open sessions');
  });
});
