import crypto from 'node:crypto';
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import type { Logger } from '../../src/logging/logger.js';
import type { BackgroundJob } from '../../src/jobs/background-job.js';
import { JobRunner } from '../../src/jobs/job-runner.js';
import { AuditLog, Session } from '../../src/models/index.js';
import { sessionFor } from '../support/auth.js';
import { createUser } from '../support/factories.js';
import { testContext } from '../support/harness.js';

const DAY = 24 * 3600 * 1000;

/**
 * Issue 13: nothing grows forever. Sessions that ended, audit records past AUDIT_RETENTION_DAYS and
 * expired throttle counters were never deleted: every login, refresh and failed attempt added a row
 * for good (an attacker's flood of them too).
 */
describe('attack: tables that only ever grow', function () {
  this.timeout(60_000);

  async function rateLimitKeys(keys: string[]): Promise<string[]> {
    const ctx = await testContext();
    const rows = await ctx.db.sequelize.query<{ key: string }>('SELECT key FROM rate_limits WHERE key = ANY($1) ORDER BY key', { bind: [keys], type: QueryTypes.SELECT });
    return rows.map((r) => r.key);
  }

  it('the maintenance job deletes ended sessions, audit records past the retention and expired counters; nothing else', async () => {
    const ctx = await testContext({ AUDIT_RETENTION_DAYS: '30' });
    const user = await createUser();
    const [live, expired, revoked, justRevoked] = await Promise.all([1, 2, 3, 4].map(() => sessionFor(user)));
    await Session.update({ expiresAt: new Date(Date.now() - DAY) }, { where: { id: expired.sessionId } });
    await Session.update({ revokedAt: new Date(Date.now() - 2 * DAY), revokedReason: 'logout' }, { where: { id: revoked.sessionId } });
    await Session.update({ revokedAt: new Date(), revokedReason: 'logout' }, { where: { id: justRevoked.sessionId } });

    const action = `test.retention_${crypto.randomBytes(4).toString('hex')}`;
    const old = await AuditLog.create({ action, userId: null, username: 'old', actor: 'test', success: true, ip: null, userAgent: null, details: {} });
    await ctx.db.sequelize.query(`UPDATE audit_logs SET created_at = now() - interval '31 days' WHERE id = $1`, { bind: [old.id] });
    const recent = await AuditLog.create({ action, userId: null, username: 'recent', actor: 'test', success: true, ip: null, userAgent: null, details: {} });

    const tag = crypto.randomBytes(4).toString('hex');
    const [stale, fresh] = [`test_${tag}_stale`, `test_${tag}_fresh`];
    await ctx.db.sequelize.query('INSERT INTO rate_limits (key, points, expire) VALUES ($1, 3, $2), ($3, 3, $4)', {
      bind: [stale, Date.now() - 60_000, fresh, Date.now() + 3_600_000],
    });

    const result = await ctx.services.retention.run();
    expect(result.ran).to.equal(true);
    expect(result.sessions).to.be.at.least(2);
    expect(result.auditRecords).to.be.at.least(1);
    expect(result.rateLimits).to.be.at.least(1);

    const left = (await Session.findAll({ where: { userId: user.user.id } })).map((s) => s.id).sort();
    expect(left).to.deep.equal([live.sessionId, justRevoked.sessionId].sort());
    expect((await AuditLog.findAll({ where: { action } })).map((r) => r.username)).to.deep.equal(['recent']);
    expect(recent.id).to.be.a('string');
    expect(await rateLimitKeys([stale, fresh])).to.deep.equal([fresh]);
    // The deletion of audit records is itself on record.
    const pruned = await AuditLog.findOne({ where: { action: 'admin.audit_pruned' }, order: [['id', 'DESC']] });
    expect(pruned?.actor).to.equal('maintenance');
  });

  it('only one instance runs it at a time (advisory lock): the other skips', async () => {
    const ctx = await testContext();
    await ctx.db.sequelize.transaction(async (tx) => {
      const [{ key }] = await ctx.db.sequelize.query<{ key: string }>('SELECT $1::bigint AS key', {
        bind: [ctx.services.retention.lockKey],
        type: QueryTypes.SELECT,
        transaction: tx,
      });
      await ctx.db.sequelize.query('SELECT pg_advisory_xact_lock($1::bigint)', { bind: [key], transaction: tx });
      const result = await ctx.services.retention.run();
      expect(result.ran).to.equal(false);
    });
    expect((await ctx.services.retention.run()).ran).to.equal(true);
  });

  it('the scheduler of serve runs the job once at a time, and a failed run does not stop the next', async () => {
    const errors: unknown[] = [];
    const logger = { error: (...args: unknown[]) => errors.push(args) } as unknown as Logger;
    let runs = 0;
    let fail = true;
    let release!: () => void;
    // The retention entry's shape (src/app/background-jobs.ts): cron, one run at a time.
    const job: BackgroundJob = {
      name: 'retention',
      description: 'test',
      schedule: { cron: '17 * * * *' },
      sharing: 'advisory-lock',
      retries: 'next hour',
      overlap: 'skip',
      runsOn: 'every-instance',
      overdueAfterSeconds: 3600,
      backlog: () => Promise.resolve({ due: 0, oldestDueSeconds: null, expiredLeases: 0 }),
      run: () =>
        new Promise<void>((resolve, reject) => {
          runs++;
          release = () => (fail ? reject(new Error('database gone')) : resolve());
        }),
    };
    const scheduler = new JobRunner([job], logger);
    const first = scheduler.tick(job);
    const overlapping = scheduler.tick(job);
    expect(runs).to.equal(1);
    release();
    await Promise.all([first, overlapping]);
    expect(errors).to.have.length(1);
    fail = false;
    const next = scheduler.tick(job);
    expect(runs).to.equal(2);
    release();
    await next;
    expect(errors).to.have.length(1);
    await scheduler.stop();
  });
});
