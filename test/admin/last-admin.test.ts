import { expect } from 'chai';
import { startServe, type ServeProcess } from '../support/cli.js';
import { cli, cliJson, freshDatabase } from './cli-helpers.js';

/**
 * "The last admin" is a property of a whole database, and the suite's shared database always holds
 * other tests' admins. So this runs on a database of its own, through the CLI and a real server
 * (`crm-admin serve`) on it, never touching anything other tests rely on.
 */
describe('the last admin cannot be demoted or deleted', function () {
  this.timeout(180_000);
  let env: Record<string, string>;
  let serve: ServeProcess | undefined;
  let drop: (() => Promise<void>) | undefined;

  before(async () => {
    ({ env, drop } = await freshDatabase('crm_last_admin'));
  });

  after(async () => {
    if (serve) {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
    await drop?.();
  });

  /** Logs in with the temporary password and sets an own one (onboarding), answering the access token. */
  async function login(username: string, password: string): Promise<string> {
    const res = await fetch(`${serve!.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    });
    expect(res.status).to.equal(200);
    const token = ((await res.json()) as { data: { tokens: { accessToken: string } } }).data.tokens.accessToken;
    // contract (docs/contract.md §3): with a temporary password only onboarding answers; the session stays valid after it.
    const set = await fetch(`${serve!.url}/api/auth/set-password`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ newPassword: `Own-${username}-Passphrase-2026` }),
    });
    expect(set.status).to.equal(200);
    return token;
  }

  function api(method: string, path: string, token: string, body?: unknown) {
    return fetch(`${serve!.url}/api/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  it('through crm-admin: set-role and delete of the only admin exit 1 and change nothing', async () => {
    await cliJson(['users', 'create', '--username', 'solo', '--role', 'admin'], undefined, env);
    const demote = await cli(['users', 'set-role', 'solo', 'member'], undefined, env);
    expect(demote.status).to.equal(1);
    expect(demote.stderr).to.contain('Posledného administrátora nemožno odobrať ani odstrániť');
    const del = await cli(['users', 'delete', 'solo', '--yes'], undefined, env);
    expect(del.status, `signal ${String(del.signal)}\n${del.stderr}`).to.equal(1);
    const admins = await cliJson(['users', 'list', '--role', 'admin'], undefined, env);
    expect(admins.items.map((u: { username: string }) => u.username)).to.deep.equal(['solo']);
  });

  it('over HTTP: 409 for demoting or deleting the only admin; with two admins, racing demotions leave one', async () => {
    // The start line (info) names the URL the server listens on.
    serve = await startServe(['--no-sync'], { ...env, LOG_LEVEL: 'info' });
    const solo = await cliJson(['users', 'reset-password', 'solo', '--yes'], undefined, env);
    const soloToken = await login('solo', solo.temporaryPassword);

    const demote = await api('PATCH', `/users/${solo.user.id}`, soloToken, { role: 'member' });
    expect(demote.status).to.equal(409);
    expect(((await demote.json()) as { error: { message: string } }).error.message).to.equal('Posledného administrátora nemožno odobrať ani odstrániť');
    expect((await api('DELETE', `/users/${solo.user.id}`, soloToken)).status).to.equal(409);

    const created = await api('POST', '/users', soloToken, { username: 'duo', role: 'admin' });
    expect(created.status).to.equal(201);
    const duo = ((await created.json()) as { data: { user: { id: string }; temporaryPassword: string } }).data;
    const duoToken = await login('duo', duo.temporaryPassword);

    // Each demotes the other at the same moment: exactly one may win.
    const [a, b] = await Promise.all([api('PATCH', `/users/${duo.user.id}`, soloToken, { role: 'member' }), api('PATCH', `/users/${solo.user.id}`, duoToken, { role: 'member' })]);
    const statuses = [a.status, b.status].sort();
    expect(statuses.filter((s) => s === 200)).to.have.length(1);
    expect([403, 409]).to.include(statuses[1]);
    const admins = await cliJson(['users', 'list', '--role', 'admin'], undefined, env);
    expect(admins.items).to.have.length(1);
  });
});
