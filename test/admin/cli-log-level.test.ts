import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../support/cli.js';
import { cliEnv } from './cli-helpers.js';

/**
 * CLI_LOG_LEVEL: how much crm-admin commands log, to stderr (stdout stays the command's answer, e.g.
 * --json). `privacy export` logs its summary at info: seen at info, not at the default warn.
 */
describe('CLI_LOG_LEVEL', function () {
  this.timeout(120_000);
  let dir: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-log-level-'));
  });

  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const exportWith = (env: Record<string, string>) =>
    runCli(
      ['privacy', 'export', '--email', `nobody-${randomBytes(4).toString('hex')}@clients.example`, '--out', path.join(dir, `${randomBytes(4).toString('hex')}.zip`), '--json'],
      cliEnv(env),
    );

  it('info shows the info lines on stderr; stdout stays the JSON answer', async () => {
    const res = await exportWith({ CLI_LOG_LEVEL: 'info' });
    expect(res.status, res.stderr).to.equal(0);
    expect(res.stderr).to.include('privacy export written');
    expect(JSON.parse(res.stdout)).to.include({ emails: 0 });
  });

  it('the default (warn) leaves them out', async () => {
    const res = await exportWith({});
    expect(res.status, res.stderr).to.equal(0);
    expect(res.stderr).not.to.include('privacy export written');
  });

  it('an unknown level is refused before the command runs, naming the variable', async () => {
    const files = fs.readdirSync(dir).length;
    const res = await exportWith({ CLI_LOG_LEVEL: 'chatty' });
    expect(res.status).to.not.equal(0);
    expect(res.stderr).to.include('CLI_LOG_LEVEL');
    expect(fs.readdirSync(dir), 'no export written').to.have.length(files);
  });
});
