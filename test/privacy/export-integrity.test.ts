import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AppContext } from '../../src/app/context.js';
import { cliEnv, cliJson, storeTimesheet } from '../admin/cli-helpers.js';
import { childEnv, crmAdmin } from '../support/cli.js';
import { createUser } from '../support/factories.js';
import { testContext } from '../support/harness.js';
import { exportOverHttp, personWithMail, waitingBackend, withLockedTable } from './export-helpers.js';
import { unzip } from './helpers.js';

/**
 * Runs crm-admin with writes to files capped at `blocks` KiB (ulimit -f) and SIGXFSZ ignored, so that
 * a write past the cap fails with EFBIG inside the command: a disk that fills up halfway.
 */
function cliWithFileCap(args: string[], blocks: number): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `trap '' XFSZ; ulimit -f ${blocks}; exec "$0" "$@"`, crmAdmin, ...args], {
      env: { ...childEnv(), LOG_LEVEL: 'error', ...cliEnv() },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('close', (status) => resolve({ status, stderr }));
  });
}

/**
 * Exports are written as FILE...partial and renamed when complete (crm-admin privacy export,
 * timesheets export), and the HTTP export cuts the connection when it fails after its first bytes:
 * a half-written zip never looks like a whole one.
 */
describe('exports: never half a zip under the final name', function () {
  this.timeout(120_000);
  let dir: string;
  let ctx: AppContext;

  before(async () => {
    ctx = await testContext();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-integrity-'));
  });

  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('crm-admin privacy export that fails halfway (disk full) leaves neither the file nor its .partial', async () => {
    const address = await personWithMail();
    const whole = path.join(dir, 'whole.zip');
    await cliJson(['privacy', 'export', '--email', address, '--out', whole]);
    expect(fs.statSync(whole).size, 'the export is larger than the cap below').to.be.above(8 * 1024);

    const out = path.join(dir, 'privacy.zip');
    const capped = await cliWithFileCap(['privacy', 'export', '--email', address, '--out', out], 4);
    expect(capped.status, capped.stderr).to.not.equal(0);
    expect(fs.readdirSync(dir).sort(), capped.stderr).to.deep.equal(['whole.zip']);
  });

  it('crm-admin timesheets export that fails halfway leaves neither the file nor its .partial', async () => {
    // Three timesheets of a month far in the past, together larger than the cap.
    const [year, month] = [2001 + (randomBytes(1)[0] % 20), 1 + (randomBytes(1)[0] % 12)];
    for (let i = 0; i < 3; i++) await storeTimesheet((await createUser()).user.id, year, month, 40_000);
    const sub = fs.mkdtempSync(path.join(dir, 'ts-'));
    const out = path.join(sub, 'vykazy.zip');
    const capped = await cliWithFileCap(['timesheets', 'export', '--year', String(year), '--month', String(month), '--out', out], 16);
    expect(capped.status, capped.stderr).to.not.equal(0);
    expect(fs.readdirSync(sub), capped.stderr).to.deep.equal([]);
  });

  it('the HTTP export cut after its first bytes ends the connection: the client never gets a complete response', async () => {
    // The export reads the attachments with the emails, after the accounts and contacts: while another
    // transaction locks them, the export has sent its first entries and waits; its database connection
    // is then cut, so the export fails midway.
    await withLockedTable('email_attachments', 'ACCESS EXCLUSIVE', async ({ server, admin, address, locker }) => {
      const { answer } = exportOverHttp(server, admin, address);
      const pid = await waitingBackend(ctx, '%FROM email_attachments%', 'the export waiting to read the attachments');
      await locker.query('SELECT pg_terminate_backend($1)', [pid]);
      const res = await answer;
      expect(res.status).to.equal(200);
      expect(res.body.length, 'the first bytes of the zip were sent').to.be.above(0);
      expect(res.complete, 'the response ended cleanly, as a whole zip would').to.equal(false);
      const opened = await unzip(res.body).then(
        () => 'opened',
        () => 'refused',
      );
      expect(opened).to.equal('refused');
    });
  });
});
