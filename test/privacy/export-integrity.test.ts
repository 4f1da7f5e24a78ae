import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../src/app/context.js';
import { cliEnv, cliJson, storeTimesheet } from '../admin/cli-helpers.js';
import { sessionFor } from '../support/auth.js';
import { childEnv, crmAdmin } from '../support/cli.js';
import { createContact, createEmail, createEmailAccount } from '../support/email-factories.js';
import { createUser } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { until } from '../support/poll.js';
import { requireDatabaseUrl } from '../support/test-env.js';
import { unzip } from './helpers.js';

/** An address with enough mail that its export is tens of kilobytes (random text does not compress). */
async function personWithMail(): Promise<string> {
  const address = `export-${randomBytes(4).toString('hex')}@clients.example`;
  const owner = await createUser();
  const account = await createEmailAccount(owner.user);
  const contact = await createContact(account, { email: address, name: 'Export Test' });
  for (let i = 0; i < 20; i++) await createEmail(account, contact, { subject: `Správa ${i}`, body: randomBytes(1500).toString('base64') });
  return address;
}

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

interface ExportAnswer {
  status: number;
  /** Whether the response ended cleanly, as a whole zip would. */
  complete: boolean;
  body: Buffer;
}

/**
 * POST /api/admin/privacy/export over a real socket (supertest would buffer the body): the answer once
 * the connection closes, and whether the response has ended so far.
 */
function exportOverHttp(server: http.Server, bearer: string, address: string): { answer: Promise<ExportAnswer>; ended: () => boolean } {
  let ended = false;
  const answer = new Promise<ExportAnswer>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: (server.address() as AddressInfo).port,
        method: 'POST',
        path: '/api/admin/privacy/export',
        headers: { Authorization: bearer, 'Content-Type': 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => (ended = true));
        res.on('error', () => undefined);
        res.once('close', () => resolve({ status: res.statusCode ?? 0, complete: res.complete, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ email: address }));
  });
  return { answer, ended: () => ended };
}

/**
 * The app on a socket, an admin, a person with mail, and the audit log locked in `mode` by another
 * transaction for the time of `work`.
 */
async function withLockedAuditLog(mode: string, work: (w: { server: http.Server; admin: string; address: string; locker: pg.Client }) => Promise<void>): Promise<void> {
  const address = await personWithMail();
  const admin = (await sessionFor(await createUser({ role: 'admin' }))).bearer;
  const server = http.createServer(await testApp());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const locker = new pg.Client({ connectionString: requireDatabaseUrl() });
  await locker.connect();
  try {
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE audit_logs IN ${mode} MODE`);
    await work({ server, admin, address, locker });
  } finally {
    await locker.query('ROLLBACK').catch(() => undefined);
    await locker.end();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** The backend of the export whose statement (`like`) waits for a lock. */
async function waitingBackend(ctx: AppContext, like: string, what: string): Promise<number> {
  const [waiting] = await until(
    () =>
      ctx.db.sequelize
        .query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1 AND pid <> pg_backend_pid()", {
          bind: [like],
          type: QueryTypes.SELECT,
        })
        .then((rows) => (rows.length > 0 ? rows : undefined)),
    { what, timeoutMs: 30_000 },
  );
  return waiting.pid;
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
    // The export reads the audit log last: while another transaction locks it, the export has sent its
    // first entries and waits; its database connection is then cut, so the export fails midway.
    await withLockedAuditLog('ACCESS EXCLUSIVE', async ({ server, admin, address, locker }) => {
      const { answer } = exportOverHttp(server, admin, address);
      const pid = await waitingBackend(ctx, '%FROM audit_logs%', 'the export waiting to read the audit log');
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

  it('the HTTP export ends only once it is audited: an export whose audit record cannot be written is cut off', async () => {
    // SHARE lets the export read the audit log (its last entry) but holds back the INSERT of its record.
    await withLockedAuditLog('SHARE', async ({ server, admin, address, locker }) => {
      const { answer, ended } = exportOverHttp(server, admin, address);
      const pid = await waitingBackend(ctx, 'INSERT INTO%audit_logs%', "the export's audit record waiting for the lock");
      // Every entry has been written by now; only the record is missing, and the response is still open.
      expect(ended(), 'the response ended before the export was audited').to.equal(false);
      await locker.query('SELECT pg_terminate_backend($1)', [pid]);
      const res = await answer;
      expect(res.status).to.equal(200);
      expect(res.complete, 'an export that was not audited ended cleanly').to.equal(false);
    });
  });
});
