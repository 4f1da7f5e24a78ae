import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { runCli } from '../support/cli.js';
import { cliEnv } from '../admin/cli-helpers.js';
import { testEnv } from '../support/test-env.js';

/** Secrets as files (NAME_FILE) and as systemd credentials ($CREDENTIALS_DIRECTORY), through the real crm-admin. */
describe('secrets from files', function () {
  this.timeout(120_000);
  let dir: string;
  let env: Record<string, string>;

  before(() => {
    dir = path.join(testEnv.tmpRoot!, 'secret-files');
    fs.mkdirSync(path.join(dir, 'credentials'), { recursive: true });
    const base = cliEnv();
    // Production: without all three secrets the program refuses to start, so a secret left unread fails this.
    env = { ...base, NODE_ENV: 'production', JWT_ACCESS_SECRET: '', JWT_REFRESH_SECRET: '', CRM_ENCRYPTION_KEY: '', DATABASE_URL: '' };
    fs.writeFileSync(path.join(dir, 'access'), `${base.JWT_ACCESS_SECRET}\n`, { mode: 0o600 });
    fs.writeFileSync(path.join(dir, 'database-url'), `${base.DATABASE_URL}\n`, { mode: 0o600 });
    fs.writeFileSync(path.join(dir, 'credentials', 'JWT_REFRESH_SECRET'), base.JWT_REFRESH_SECRET, { mode: 0o600 });
    fs.writeFileSync(path.join(dir, 'credentials', 'CRM_ENCRYPTION_KEY'), base.CRM_ENCRYPTION_KEY, { mode: 0o600 });
    env = {
      ...env,
      JWT_ACCESS_SECRET_FILE: path.join(dir, 'access'),
      DATABASE_URL_FILE: path.join(dir, 'database-url'),
      CREDENTIALS_DIRECTORY: path.join(dir, 'credentials'),
    };
  });

  it('a command reads NAME_FILE and the credentials directory, and reaches the database named in a file', async () => {
    const res = await runCli(['users', 'list', '--json'], env);
    expect(res.status, res.stderr).to.equal(0);
    expect(JSON.parse(res.stdout)).to.have.property('items').that.is.an('array');
  });

  it('two values for one secret stop the start, listed with the other configuration problems (exit 1)', async () => {
    const res = await runCli(['users', 'list', '--json'], { ...env, JWT_REFRESH_SECRET: 'z'.repeat(48), PORT: 'not-a-port' });
    expect(res.status).to.equal(1);
    const error = JSON.parse(res.stderr.trim().split('\n').at(-1)!).error as { code: string; details: string[] };
    expect(error.code).to.equal('invalid_configuration');
    expect(error.details).to.have.length(2);
    expect(error.details.find((p) => p.startsWith('JWT_REFRESH_SECRET:'))).to.match(/JWT_REFRESH_SECRET, systémový credential JWT_REFRESH_SECRET/);
    expect(error.details.find((p) => p.startsWith('PORT:'))).to.be.a('string');
  });

  it('serve refuses to start on two values too, one log line naming both', async () => {
    const res = await runCli(['serve'], { ...env, JWT_ACCESS_SECRET: 'y'.repeat(48), LOG_LEVEL: 'info' });
    expect(res.status).to.equal(1);
    expect(res.stdout + res.stderr).to.match(/start failed: invalid configuration: JWT_ACCESS_SECRET: zadané viackrát \(JWT_ACCESS_SECRET, JWT_ACCESS_SECRET_FILE\)/);
  });
});
