import crypto from 'node:crypto';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../../src/app/context.js';
import { createLogger } from '../../../src/logging/logger.js';
import { SyncService } from '../../../src/sync/sync-service.js';
import { testContext } from '../../support/harness.js';
import { crmUser, freshMailUser, otherSyncService, put, syncDeps } from '../../sync/helpers.js';

/**
 * Why a run of one account was not started, as `crm-admin sync run --account` and the log say it
 * (SyncResult.skipReason, src/sync/account-lease.ts): an account that does not exist, one another
 * process holds the lease of (named by role, pid and host, with the lease's end), one that is
 * inactive or has no active user; and a lease that expired under its holder is taken over.
 */
describe('sync: a run refused, and why', function () {
  this.timeout(60_000);
  let ctx: AppContext;
  let sync: SyncService;
  let accountId: string;
  let ownerId: string;

  /** Sets the account's lease as another process would hold it: its holder, and its end in seconds from now. */
  const lease = (lockedBy: string | null, secondsFromNow: number | null) =>
    ctx.db.sequelize.query('UPDATE mail_sync_states SET locked_by = $2, locked_until = now() + make_interval(secs => $3::float8) WHERE email_account_id = $1', {
      bind: [accountId, lockedBy, secondsFromNow],
    });

  before(async () => {
    ctx = await testContext();
    const mail = await freshMailUser('refusal');
    await put(mail, 'INBOX', { from: 'klient@refusal.example', to: mail.user, subject: 'Prvá', body: 'a' });
    const owner = await crmUser();
    ownerId = owner.fixture.user.id;
    accountId = (await ctx.services.emailAccounts.add(ownerId, { email: mail.user, emailPassword: mail.pass }, { actor: 'test' }, { requestSync: false })).id;
    sync = otherSyncService(ctx, { intervalSeconds: 60 });
    expect(await sync.syncAccount(accountId)).to.include({ outcome: 'ok', stored: 1 });
  });

  after(() => sync?.shutdown());

  it('names an account that does not exist', async () => {
    const result = await sync.syncAccount(crypto.randomUUID());
    expect(result).to.include({ outcome: 'skipped', skipReason: 'the email account does not exist' });
  });

  it('names the process that holds the lease, and until when; takes over a lease that expired under its holder', async () => {
    await lease('web1:4242:worker:0badc0de', 300);
    try {
      const refused = await sync.syncAccount(accountId);
      expect(refused.outcome).to.equal('skipped');
      expect(refused.skipReason).to.match(/^another process is syncing it: worker pid 4242 on web1 holds the lease until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      // The refusal changed nothing: the holder keeps its lease.
      const [row] = await ctx.db.sequelize.query<{ locked_by: string }>('SELECT locked_by FROM mail_sync_states WHERE email_account_id = $1', {
        bind: [accountId],
        type: QueryTypes.SELECT,
      });
      expect(row.locked_by).to.equal('web1:4242:worker:0badc0de');

      // Expired: taken over, and the log names whom from (a run of a service whose log is kept here).
      await lease('web1:4242:worker:0badc0de', -1);
      const lines: Array<{ level: string; message: string; fromHolder?: string }> = [];
      const stream = new PassThrough();
      stream.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as (typeof lines)[number]);
      });
      const watched = new SyncService({ ...syncDeps(ctx), logger: createLogger('info', { stream }) }, { intervalSeconds: 60 });
      try {
        expect(await watched.syncAccount(accountId)).to.include({ outcome: 'ok' });
      } finally {
        await watched.shutdown();
      }
      expect(lines.filter((l) => l.message === 'mail sync lease taken over').map((l) => [l.level, l.fromHolder])).to.deep.equal([['warn', 'worker pid 4242 on web1']]);
    } finally {
      await lease(null, null);
    }
  });

  it('refuses an inactive account, and one whose only user is disabled', async () => {
    await ctx.db.sequelize.query('UPDATE email_accounts SET is_active = false WHERE id = $1', { bind: [accountId] });
    try {
      expect(await sync.syncAccount(accountId)).to.include({ outcome: 'skipped', skipReason: 'the email account is inactive, or none of its users is active' });
    } finally {
      await ctx.db.sequelize.query('UPDATE email_accounts SET is_active = true WHERE id = $1', { bind: [accountId] });
    }
    await ctx.db.sequelize.query('UPDATE users SET disabled_at = now() WHERE id = $1', { bind: [ownerId] });
    try {
      expect(await sync.syncAccount(accountId)).to.include({ outcome: 'skipped', skipReason: 'the email account is inactive, or none of its users is active' });
    } finally {
      await ctx.db.sequelize.query('UPDATE users SET disabled_at = NULL WHERE id = $1', { bind: [ownerId] });
    }
    expect(await sync.syncAccount(accountId)).to.include({ outcome: 'ok' });
  });
});
