import { expect } from 'chai';
import { runCli, type CliResult } from '../support/cli.js';
import { baseTestEnv } from '../support/harness.js';

/** The environment of an admin on the server (without NODE_ENV=test: that puts oclif into development mode). */
function env(overrides: Record<string, string> = {}): Record<string, string> {
  const { NODE_ENV: _test, ...base } = baseTestEnv();
  return { ...base, ...overrides };
}

/** stderr must be exactly one JSON object {"error": {...}} and stdout empty. */
function jsonError(res: CliResult): { code: string; message: string; statusCode?: number; details?: unknown } {
  expect(res.stdout, res.stdout).to.equal('');
  const lines = res.stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines, res.stderr).to.have.length(1);
  const parsed = JSON.parse(lines[0]) as { error: { code: string; message: string } };
  expect(Object.keys(parsed)).to.deep.equal(['error']);
  expect(parsed.error.code).to.be.a('string');
  expect(parsed.error.message).to.be.a('string').and.not.equal('');
  return parsed.error;
}

describe('crm-admin --json errors, db seed in production, audit actor', function () {
  this.timeout(60_000);

  it('a missing argument is a usage error: one JSON object, exit 2', async () => {
    const res = await runCli(['users', 'delete', '--json'], env());
    expect(res.status).to.equal(2);
    const error = jsonError(res);
    expect(error.code).to.equal('usage');
    expect(error.message).to.match(/Missing 1 required arg/);
  });

  it('an unknown flag and a bad flag value are usage errors, exit 2', async () => {
    for (const args of [
      ['users', 'list', '--bogus', '--json'],
      ['users', 'list', '--limit', 'many', '--json'],
    ]) {
      const res = await runCli(args, env());
      expect(res.status, args.join(' ')).to.equal(2);
      expect(jsonError(res).code).to.equal('usage');
    }
  });

  it('a failure (not found) is one JSON object with code and statusCode, exit 1', async () => {
    const res = await runCli(['users', 'delete', 'nobody-by-this-name', '--yes', '--json'], env());
    expect(res.status).to.equal(1);
    const error = jsonError(res);
    expect(error.code).to.equal('not_found');
    expect(error.statusCode).to.equal(404);
  });

  it("an error the API also answers carries the API's code and status (one list, src/errors/error-codes.ts)", async () => {
    const res = await runCli(['users', 'create', '--username', 'a b', '--role', 'member', '--json'], env());
    expect(res.status).to.equal(1);
    const error = jsonError(res);
    expect(error.code).to.equal('validation_failed');
    expect(error.statusCode).to.equal(400);
    expect(JSON.stringify(error.details)).to.contain('username');
  });

  it('an invalid configuration is one JSON object listing the problems, exit 1', async () => {
    const res = await runCli(['users', 'list', '--json'], env({ PORT: 'not-a-port' }));
    expect(res.status).to.equal(1);
    const error = jsonError(res);
    expect(error.code).to.equal('invalid_configuration');
    expect(JSON.stringify(error.details)).to.contain('PORT');
  });

  it('without --json, errors stay human text on stderr with the same exit codes', async () => {
    const usage = await runCli(['users', 'delete'], env());
    expect(usage.status).to.equal(2);
    expect(usage.stderr).to.match(/Missing 1 required arg/);
    const missing = await runCli(['users', 'delete', 'nobody-by-this-name', '--yes'], env());
    expect(missing.status).to.equal(1);
    expect(missing.stderr).to.match(/^Chyba: /);
  });

  it('db seed refuses in production without --yes (exit 2) and names the flag', async () => {
    const res = await runCli(['db', 'seed', '--json'], env({ NODE_ENV: 'production' }));
    expect(res.status).to.equal(2);
    const error = jsonError(res);
    expect(error.code).to.equal('usage');
    expect(error.message).to.contain('--yes');
    const plain = await runCli(['db', 'seed'], env({ NODE_ENV: 'production' }));
    expect(plain.status).to.equal(2);
    expect(plain.stdout).not.to.contain('temporary password');
  });

  it('records the admin named by the systemd wrapper (CRM_ADMIN_ACTOR) beside the OS account', async () => {
    const username = `actor.${Date.now()}`;
    const created = await runCli(['users', 'create', '--username', username, '--role', 'member', '--json'], env({ CRM_ADMIN_ACTOR: 'jana.admin' }));
    expect(created.status, created.stderr).to.equal(0);
    const audit = await runCli(['audit', 'list', '--user', username, '--json'], env());
    expect(audit.status, audit.stderr).to.equal(0);
    const actors = JSON.stringify(JSON.parse(audit.stdout)).match(/"actor":"([^"]*)"/g) ?? [];
    expect(actors.length, audit.stdout).to.be.greaterThan(0);
    expect(actors[0]).to.match(/"actor":"cli:jana\.admin \(os:[^)]+\)"/);
    // Not a free-text field: anything but a plain name is ignored.
    const odd = await runCli(['users', 'create', '--username', `${username}b`, '--role', 'member', '--json'], env({ CRM_ADMIN_ACTOR: 'x"; DROP' }));
    expect(odd.status, odd.stderr).to.equal(0);
    const audit2 = await runCli(['audit', 'list', '--user', `${username}b`, '--json'], env());
    expect(audit2.stdout).not.to.contain('DROP');
  });
});
