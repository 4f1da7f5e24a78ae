import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../support/cli.js';

// The rules of AppConfig.fromEnv are unit tests (test/unit/config.test.ts); this one needs the built program.
describe('configuration: a bad environment at start', () => {
  it('makes `crm-admin serve` exit non-zero and print every problem', () => {
    const res = spawnSync(path.join(repoRoot, 'bin/crm-admin'), ['serve'], {
      env: { PATH: process.env.PATH, PORT: '-5', SYNC_CRON: 'nope', NODE_ENV: 'production' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(res.status).to.equal(1);
    // One JSON line in the service's log (stdout), like every other start failure.
    const lines = (res.stdout + res.stderr).split('\n').filter((l) => l.trim() !== '');
    expect(lines).to.have.length(1);
    const line = JSON.parse(lines[0]) as { level: string; message: string };
    expect(line.level).to.equal('error');
    for (const name of ['PORT', 'SYNC_CRON']) expect(line.message).to.contain(name);
  });

  it('makes `crm-admin serve` in production refuse guessable secrets, saying how to generate good ones', () => {
    const res = spawnSync(path.join(repoRoot, 'bin/crm-admin'), ['serve'], {
      env: { PATH: process.env.PATH, NODE_ENV: 'production', JWT_ACCESS_SECRET: 'a'.repeat(40), JWT_REFRESH_SECRET: 'b'.repeat(40), CRM_ENCRYPTION_KEY: 'ab'.repeat(32) },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(res.status).to.equal(1);
    const lines = (res.stdout + res.stderr).split('\n').filter((l) => l.trim() !== '');
    expect(lines).to.have.length(1);
    const line = JSON.parse(lines[0]) as { level: string; message: string };
    expect(line.level).to.equal('error');
    for (const name of ['JWT_ACCESS_SECRET', 'JWT_REFRESH_SECRET', 'CRM_ENCRYPTION_KEY']) expect(line.message).to.contain(name);
    expect(line.message).to.contain('openssl rand -base64 48');
  });
});
