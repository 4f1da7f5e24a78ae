import { expect } from 'chai';
import request from 'supertest';
import { AuditActions } from '../../src/audit/audit-service.js';
import { AuditLog } from '../../src/models/index.js';
import { createUser, type UserFixture } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { until } from '../support/poll.js';
import { runCli } from '../support/cli.js';
import { cli, cliEnv, cliJson } from './cli-helpers.js';

/** crm-admin tokens list|revoke (issue 48): an administrator sees and ends any user's API tokens. */
describe('crm-admin tokens list and revoke', function () {
  this.timeout(120_000);
  let user: UserFixture;

  beforeEach(async () => {
    user = await createUser();
  });

  async function newToken(scopes: Array<'contacts:read' | 'emails:write'> = ['contacts:read']) {
    const ctx = await testContext();
    return ctx.services.apiTokens.create({ id: user.user.id, username: user.username, role: 'member' }, { name: 'ERP export', scopes }, { actor: 'test' });
  }

  it("list --user shows the user's tokens (name, scopes, owner) and never a secret or hash", async () => {
    const first = await newToken();
    const second = await newToken(['emails:write']);
    const listed = await cliJson(['tokens', 'list', '--user', user.username]);
    expect(listed.pagination).to.include({ total: 2 });
    expect(listed.items.map((t: { id: string }) => t.id)).to.deep.equal([second.apiToken.id, first.apiToken.id]);
    expect(listed.items[0]).to.include({ username: user.username, userId: user.user.id, name: 'ERP export', lastUsedAt: null });
    expect(listed.items[0].scopes).to.deep.equal(['emails:write']);
    const text = JSON.stringify(listed) + (await cli(['tokens', 'list', '--user', user.username])).stdout;
    for (const secret of [first.token, second.token]) expect(text).not.to.contain(secret.slice('crm_pat_'.length));
    expect(JSON.stringify(listed)).not.to.match(/hash/i);
    const everyone = await cliJson(['tokens', 'list', '--limit', '100']);
    expect(everyone.pagination.total).to.be.at.least(2);
  });

  it('revoke asks first (no terminal and no --yes: exit 2, the token still works), then ends it at once', async () => {
    const app = await testApp();
    const { token, apiToken } = await newToken();
    const me = () => request(app).get('/api/contacts').set('Authorization', `Bearer ${token}`);
    expect((await me()).status).to.equal(200);
    const asked = await cli(['tokens', 'revoke', apiToken.id]);
    expect(asked.status).to.equal(2);
    expect(asked.stderr).to.contain('--yes');
    expect((await me()).status).to.equal(200);
    const out = await cliJson(['tokens', 'revoke', apiToken.id, '--yes']);
    expect(out.revoked).to.include({ id: apiToken.id, username: user.username });
    // Another process's cache (the app's) hears of it through the auth-change notification.
    await until(async () => (await me()).status === 401, { what: 'the revoked token to be refused' });
    const record = await AuditLog.findOne({ where: { action: AuditActions.apiTokenRevoked, userId: user.user.id } });
    expect(record?.details).to.include({ tokenId: apiToken.id, byOwner: false });
    expect(record?.actor).to.match(/^cli:/);
  });

  it('revoke of an unknown id: exit 1, not found; a malformed id: exit 1', async () => {
    const missing = await cli(['tokens', 'revoke', '00000000-0000-4000-8000-000000000000', '--yes']);
    expect(missing.status).to.equal(1);
    expect(missing.stderr).to.contain('API token neexistuje');
    expect((await cli(['tokens', 'revoke', 'nope', '--yes'])).status).to.equal(1);
  });

  it('runs as the real program too (tokens list --json)', async () => {
    await newToken();
    const res = await runCli(['tokens', 'list', '--user', user.username, '--json'], cliEnv());
    expect(res.status, res.stderr).to.equal(0);
    expect(JSON.parse(res.stdout).pagination.total).to.equal(1);
  });
});
