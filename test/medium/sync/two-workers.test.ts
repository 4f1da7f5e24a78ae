import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../../src/app/context.js';
import { Sql } from '../../../src/db/sql.js';
import type { Tx } from '../../../src/db/transactions.js';
import { SyncRepository, type ClaimedRow, type Finish, type HeldLease, type StateRow } from '../../../src/sync/sync-repository.js';
import { SyncService } from '../../../src/sync/sync-service.js';
import { testContext } from '../../support/harness.js';
import { crmUser, freshMailUser, put, storedEmails, syncDeps } from '../../sync/helpers.js';

interface Hold {
  worker: string;
  accountId: string;
  from: number;
  to?: number;
}

/**
 * Records when each worker holds each account's lease, from inside the lease: the start is taken when
 * the claim (or lock) statement has returned, the end just before the release is sent. Two holds of
 * one account can then only overlap if the leases really did.
 */
class RecordingRepository extends SyncRepository {
  constructor(
    sql: Sql,
    private readonly worker: string,
    private readonly holds: Hold[],
  ) {
    super(sql);
  }

  override async claimNextDue(owner: string, leaseSeconds: number, accountIds: string[] | null, tx?: Tx): Promise<ClaimedRow | undefined> {
    const row = await super.claimNextDue(owner, leaseSeconds, accountIds, tx);
    if (row) this.holds.push({ worker: this.worker, accountId: row.account_id, from: performance.now() });
    return row;
  }

  override async lockState(accountId: string, dueOnly: boolean, tx?: Tx): Promise<StateRow | undefined> {
    const row = await super.lockState(accountId, dueOnly, tx);
    if (row?.acquired) this.holds.push({ worker: this.worker, accountId, from: performance.now() });
    return row;
  }

  /** Set by a test: this worker's next run, done but its lease still held, waits here for `release`. */
  holdNextLease?: { reached: () => void; release: Promise<void> };

  override async finishLease(lease: HeldLease, result: Finish): Promise<void> {
    const gate = this.holdNextLease;
    if (gate) {
      this.holdNextLease = undefined;
      gate.reached();
      await gate.release;
    }
    const open = [...this.holds].reverse().find((h) => h.worker === this.worker && h.accountId === lease.accountId && h.to === undefined);
    if (open) open.to = performance.now();
    return super.finishLease(lease, result);
  }
}

/**
 * Two sync workers on one database, as two `serve --no-api` processes would be: they take due
 * accounts from one queue, never hold one account at the same time, and between them sync every
 * account exactly once per round.
 */
describe('mail sync: two workers on one database', function () {
  this.timeout(120_000);
  let ctx: AppContext;
  const holds: Hold[] = [];
  const accountIds: string[] = [];
  const run = randomBytes(3).toString('hex');
  let workers: Array<{ name: string; service: SyncService; repository: RecordingRepository }>;

  before(async () => {
    ctx = await testContext();
    // Two mailboxes, each linked by five CRM users: ten accounts to sync.
    for (let m = 0; m < 2; m++) {
      const mail = await freshMailUser('workers');
      for (let i = 1; i <= 6; i++) await put(mail, 'INBOX', { from: `p${i}@customer.example`, to: mail.user, subject: `Mail ${run} ${m}.${i}`, body: `b ${i}` });
      for (let u = 0; u < 5; u++) {
        const owner = await crmUser();
        accountIds.push(
          (await ctx.services.emailAccounts.add(owner.fixture.user.id, { email: mail.user, emailPassword: mail.pass }, { actor: 'test' }, { requestSync: false })).id,
        );
      }
    }
    workers = ['A', 'B'].map((name) => {
      const repository = new RecordingRepository(new Sql(ctx.db.sequelize), name, holds);
      return {
        name,
        repository,
        service: new SyncService(
          { ...syncDeps(ctx), repository },
          // Small pages: a first sync takes several batches, so the holds are long enough to collide.
          { instanceId: `worker-${name}-${run}`, concurrency: 3, batchSize: 2, intervalSeconds: 3600 },
        ),
      };
    });
  });

  after(async () => {
    await Promise.all(workers.map((w) => w.service.shutdown()));
  });

  it('syncs every account exactly once per round between them, never one account in both at once', async () => {
    const perRound: string[][] = [];
    for (let round = 1; round <= 3; round++) {
      // Everyone's turn at the same instant: the worst case for two workers pulling from one queue.
      await ctx.db.sequelize.query('UPDATE mail_sync_states SET next_sync_at = now() WHERE email_account_id = ANY($1::uuid[])', { bind: [accountIds] });
      const results = (await Promise.all(workers.map((w) => w.service.runDueAccounts({ accountIds })))).flat();
      for (const r of results) expect(r.outcome, JSON.stringify(r)).to.equal('ok');
      perRound.push(results.map((r) => r.accountId).sort());
      // The turns it leaves behind are all in the future: a second look in this round finds nothing.
      expect(await workers[0].service.runDueAccounts({ accountIds })).to.deep.equal([]);
    }
    for (const synced of perRound) expect(synced).to.deep.equal([...accountIds].sort());

    for (const id of accountIds) {
      const mine = holds.filter((h) => h.accountId === id).sort((a, b) => a.from - b.from);
      expect(mine, id).to.have.length(3);
      for (let i = 1; i < mine.length; i++) {
        expect(mine[i].from, `account ${id}: hold ${i} began before hold ${i - 1} ended`).to.be.greaterThan(mine[i - 1].to!);
      }
    }
    // Both took part (ten accounts, three at a time each).
    expect(new Set(holds.map((h) => h.worker))).to.deep.equal(new Set(['A', 'B']));
    // Nothing twice: every account holds its mailbox's six emails once.
    for (const id of accountIds) expect((await storedEmails(ctx, id)).map((e) => e.subject)).to.have.length(6);
  });

  it('keeps off an account the other worker is syncing, also for "sync now"', async () => {
    const [a, b] = workers;
    const id = accountIds[0];
    await ctx.db.sequelize.query('UPDATE mail_sync_states SET next_sync_at = now() WHERE email_account_id = $1', { bind: [id] });
    // A takes the account from the queue and stops at the end of its run with the lease still held:
    // the collision is forced, not hoped for.
    let reached!: () => void;
    let release!: () => void;
    const atTheEnd = new Promise<void>((resolve) => (reached = resolve));
    a.repository.holdNextLease = { reached, release: new Promise<void>((resolve) => (release = resolve)) };
    const fromQueue = a.service.runDueAccounts({ accountIds: [id] });
    await atTheEnd;
    try {
      // B is told to sync it now (dueOnly false), and B's own queue is asked: both keep off it.
      expect((await b.service.syncAccount(id)).outcome).to.equal('skipped');
      expect(await b.service.runDueAccounts({ accountIds: [id] })).to.deep.equal([]);
    } finally {
      release();
    }
    expect((await fromQueue).map((r) => r.outcome)).to.deep.equal(['ok']);
    // Once A has let go, B's "sync now" runs.
    expect((await b.service.syncAccount(id)).outcome).to.equal('ok');
    const mine = holds.filter((h) => h.accountId === id).sort((x, y) => x.from - y.from);
    for (let i = 1; i < mine.length; i++) expect(mine[i].from).to.be.greaterThan(mine[i - 1].to!);
  });
});
