import { expect } from 'chai';
import { spawn } from 'node:child_process';
import pg from 'pg';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { AddressHasher } from '../../src/privacy/address-hash.js';
import { cliEnv } from '../admin/cli-helpers.js';
import { sessionFor } from '../support/auth.js';
import { childEnv, crmAdmin } from '../support/cli.js';
import { createUser } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { until } from '../support/poll.js';
import { requireDatabaseUrl } from '../support/test-env.js';
import { exportOverHttp, personWithMail, waitingBackend, withLockedTable } from './export-helpers.js';

interface ExportRecord {
  action: string;
  success: boolean;
  details: { exportId?: string; outcome?: string; bytes?: number; emails?: number; addressHash?: string };
}

/**
 * Issue 52, finding 2: an access request is audited before its first byte leaves (in a transaction of
 * its own, committed), and its end says whether it completed or was cut off, with the bytes sent. An
 * export that cannot be audited is refused before it sends anything.
 */
describe('privacy export: audited before the first byte, its end recorded', function () {
  this.timeout(120_000);
  let ctx: AppContext;
  let hasher: AddressHasher;

  before(async () => {
    ctx = await testContext();
    hasher = new AddressHasher(ctx.config.secrets.encryptionKey, ctx.config.secrets.oldEncryptionKeys);
  });

  /** The export's records of an address, oldest first. */
  const recordsOf = (address: string) =>
    ctx.db.sequelize.query<ExportRecord>("SELECT action, success, details FROM audit_logs WHERE action LIKE 'privacy.export%' AND details->>'addressHash' = $1 ORDER BY id", {
      bind: [hasher.label(address)],
      type: QueryTypes.SELECT,
    });
  const endOf = async (address: string) => (await recordsOf(address)).find((r) => r.action === 'privacy.export_ended');

  it('a whole export: the record written before it, and its completion with the bytes sent and the counts', async () => {
    const address = await personWithMail(3, 200);
    const admin = (await sessionFor(await createUser({ role: 'admin' }))).bearer;
    const res = await request(await testApp())
      .post('/api/admin/privacy/export')
      .set('Authorization', admin)
      .send({ email: address })
      .buffer(true)
      .parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => cb(null, Buffer.concat(chunks)));
      });
    expect(res.status).to.equal(200);
    const records = await recordsOf(address);
    expect(records.map((r) => [r.action, r.details.outcome])).to.deep.equal([
      ['privacy.exported', 'started'],
      ['privacy.export_ended', 'completed'],
    ]);
    expect(records[1].details.exportId).to.equal(records[0].details.exportId);
    expect(records[1].details).to.include({ bytes: (res.body as Buffer).length, emails: 3 });
  });

  it('over HTTP the record is committed before the first byte, and a client that goes away leaves an aborted record with the bytes sent', async () => {
    // email_attachments is read first with the emails (accounts and contacts come before them): while it
    // is locked, the export has sent its first entries and waits there.
    await withLockedTable(
      'email_attachments',
      'ACCESS EXCLUSIVE',
      async ({ server, admin, address, locker }) => {
        const call = exportOverHttp(server, admin, address);
        await waitingBackend(ctx, '%FROM email_attachments%', 'the export waiting to read the attachments');
        await until(() => call.received() > 0, { what: 'the first bytes of the export' });
        const started = await recordsOf(address);
        expect(
          started.map((r) => [r.action, r.details.outcome]),
          'bytes of the export reached the client with no audit record of it',
        ).to.deep.equal([['privacy.exported', 'started']]);

        call.abandon();
        await locker.query('ROLLBACK');
        const end = await until(() => endOf(address), { what: 'the record of the export that was cut off', timeoutMs: 30_000 });
        expect(end.success).to.equal(false);
        expect(end.details.outcome).to.equal('aborted');
        expect(end.details.exportId).to.equal(started[0].details.exportId);
        expect(end.details.bytes).to.be.above(0);
      },
      [20, 1500],
    );
  });

  it('an export whose record cannot be written is refused before its first byte (503)', async () => {
    // SHARE lets the export read the audit log but holds back the INSERT of its record.
    await withLockedTable('audit_logs', 'SHARE', async ({ server, admin, address, locker }) => {
      const call = exportOverHttp(server, admin, address);
      const pid = await waitingBackend(ctx, 'INSERT INTO%audit_logs%', "the export's audit record waiting for the lock");
      expect(call.received(), 'bytes of the export left before its audit record was written').to.equal(0);
      await locker.query('SELECT pg_terminate_backend($1)', [pid]);
      const res = await call.answer;
      expect(res.status).to.equal(503);
      expect(JSON.parse(res.body.toString('utf8'))).to.deep.include({ success: false });
    });
  });

  it('crm-admin privacy export whose record cannot be written writes nothing and logs the failed write at error', async () => {
    const address = await personWithMail(3, 200);
    const locker = new pg.Client({ connectionString: requireDatabaseUrl() });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE audit_logs IN SHARE MODE');
      const run = spawnExport(`"$0" privacy export --email ${address} --out -`);
      // A command starts in about a second, far longer on a busy machine.
      const pid = await waitingBackend(ctx, 'INSERT INTO%audit_logs%', "the command's audit record waiting for the lock", 120_000);
      await locker.query('SELECT pg_terminate_backend($1)', [pid]);
      const done = await run;
      expect(done.status).to.equal(1);
      expect(done.stdout.length, 'zip bytes written before the export was audited').to.equal(0);
      const logged = done.stderr
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { level: string; message: string; action?: string });
      expect(logged.filter((l) => l.level === 'error' && l.message === 'audit write failed').map((l) => l.action)).to.deep.equal(['privacy.exported']);
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
    }
  });

  it('crm-admin privacy export --out - | head: the export is on record, and its end says aborted', async () => {
    // Larger than a pipe's buffer (64 KiB), so head exits while the export still writes.
    const address = await personWithMail(60, 3000);
    const done = await spawnExport(`"$0" privacy export --email ${address} --out - | head -c 100 > /dev/null`);
    expect(done.status, done.stderr).to.not.equal(null);
    const records = await recordsOf(address);
    expect(records.map((r) => [r.action, r.details.outcome])).to.deep.equal([
      ['privacy.exported', 'started'],
      ['privacy.export_ended', 'aborted'],
    ]);
    expect(records[1].details.bytes).to.be.above(0);
  });
});

/** crm-admin through bash (`$0` is crm-admin), its stdout as bytes. */
function spawnExport(script: string): Promise<{ status: number | null; stdout: Buffer; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `set -o pipefail; ${script}`, crmAdmin], {
      env: { ...childEnv(), LOG_LEVEL: 'error', ...cliEnv() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.once('close', (status) => resolve({ status, stdout: Buffer.concat(out), stderr }));
  });
}
