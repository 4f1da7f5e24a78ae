import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../../src/app/context.js';
import { testApp, testContext } from '../../support/harness.js';
import { Sql } from '../../../src/db/sql.js';
import { MailStoreRepository } from '../../../src/sync/mail-store-repository.js';
import { SyncService } from '../../../src/sync/sync-service.js';
import { crmUser, freshMailUser, linkViaApi, otherSyncService, put, storedContacts, storedEmails, syncDeps, syncState, type MailUser } from '../../sync/helpers.js';

const day = (n: number) => new Date(Date.UTC(2024, 5, n, 12, 0, 0));

/**
 * Interruptions at the worst moments: between batches (shutdown, a crash), a holder that died with
 * the lease, two processes at once. Each case syncs the same mailbox into a new CRM account with
 * tiny batches and must end with exactly what one clean sync produces.
 */
describe('mail sync resilience: interruptions, crashes, concurrent instances', function () {
  this.timeout(60_000);
  let app: Express;
  let ctx: AppContext;
  let mail: MailUser;
  let expected: unknown[];
  let expectedContacts: unknown[];
  let referenceJmapIds: string[];
  const run = randomBytes(3).toString('hex');

  const snapshot = async (accountId: string) => (await storedEmails(ctx, accountId)).map((e) => [e.jmap_id, e.subject, e.contact_email, e.linked, e.is_read]);
  const contactsOf = async (accountId: string) => (await storedContacts(ctx, accountId)).map((c) => [c.email, c.name, c.last_email_at?.toISOString()]);

  /** A new CRM user with the same mailbox, linked without starting a sync (the test drives it). */
  async function newAccount(): Promise<string> {
    const owner = await crmUser();
    const account = await ctx.services.emailAccounts.add(owner.fixture.user.id, { email: mail.user, emailPassword: mail.pass }, { actor: 'test' }, { requestSync: false });
    return account.id;
  }

  before(async () => {
    app = await testApp();
    ctx = await testContext();
    mail = await freshMailUser('resil');
    const me = { email: mail.user };
    const people = ['ann', 'ben', 'cat'].map((n) => ({ name: `${n.toUpperCase()} ${run}`, email: `${n}@people.example` }));
    for (let i = 1; i <= 8; i++) {
      await put(mail, 'INBOX', { from: people[i % 3], to: me, subject: `Message ${i}`, body: `Body ${i}`, date: day(i) }, i % 2 ? ['\\Seen'] : []);
    }
    // Newer than the mail that makes Dan a contact: with newest-first pages he is linked afterwards.
    await put(mail, 'INBOX', { from: people[0], to: me, cc: { name: 'Dan', email: 'dan@people.example' }, subject: 'Message 10 (cc Dan)', body: 'cc', date: day(10) });
    await put(mail, 'Sent', { from: me, to: { name: 'Dan', email: 'dan@people.example' }, subject: 'Message 9 (to Dan)', body: 'hi', date: day(9) }, ['\\Seen']);
    await put(mail, 'Trash', { from: people[1], to: me, subject: 'Trashed', body: 'x', date: day(11) });

    // The reference: one clean sync with default batch sizes, through the API.
    const referenceId = await linkViaApi(app, ctx, await crmUser(), mail);
    expected = await snapshot(referenceId);
    expectedContacts = await contactsOf(referenceId);
    referenceJmapIds = (await storedEmails(ctx, referenceId)).map((e) => e.jmap_id);
    expect(expected).to.have.length(10);
    const cc = (await storedEmails(ctx, referenceId)).find((e) => e.subject === 'Message 10 (cc Dan)')!;
    expect(cc.linked).to.deep.equal(['ann@people.example', 'dan@people.example']);
  });

  it('stops after the batch in progress on shutdown() and the next run resumes from there', async () => {
    const accountId = await newAccount();
    const first = otherSyncService(ctx, { batchSize: 2 });
    const stopped = await first.syncAccount(accountId, {
      onProgress: () => {
        void first.shutdown(); // like SIGTERM arriving during the first batch
      },
    });
    expect(stopped).to.include({ outcome: 'interrupted', fetched: 2, stored: 2 });
    const state = await syncState(ctx, accountId);
    expect(state).to.include({ status: 'idle', email_state: null, locked_by: null, locked_until: null });
    expect((state.full_sync_checkpoint as { anchor: string | null }).anchor).to.be.a('string');
    expect(await first.syncAccount(accountId)).to.include({ outcome: 'skipped' }); // a stopped service starts nothing

    const second = await otherSyncService(ctx, { batchSize: 2 }).syncAccount(accountId);
    expect(second).to.include({ outcome: 'ok', mode: 'full', fetched: 8 }); // the 8 not yet seen, nothing twice
    expect(await snapshot(accountId)).to.deep.equal(expected);
    expect(await contactsOf(accountId)).to.deep.equal(expectedContacts);
  });

  it('survives a crash after a committed batch: nothing lost, nothing doubled', async () => {
    const accountId = await newAccount();
    let batches = 0;
    const crashing = await otherSyncService(ctx, { batchSize: 2 }).syncAccount(accountId, {
      onProgress: () => {
        if (++batches === 2) throw new Error('simulated crash after batch 2');
      },
    });
    expect(crashing).to.include({ outcome: 'error', stored: 4 });
    expect(await syncState(ctx, accountId)).to.include({ status: 'error', consecutive_failures: 1 });

    const resumed = await otherSyncService(ctx, { batchSize: 3 }).syncAccount(accountId);
    expect(resumed).to.include({ outcome: 'ok', fetched: 6 });
    expect(await snapshot(accountId)).to.deep.equal(expected);
    expect(await syncState(ctx, accountId)).to.include({ status: 'ok', consecutive_failures: 0 });
  });

  it('respects the lease of another instance and takes over an expired one', async () => {
    const accountId = await newAccount();
    await ctx.db.sequelize.query(
      "UPDATE mail_sync_states SET locked_by = 'crashed-host:1:dead', locked_until = now() + interval '5 minutes', status = 'syncing' WHERE email_account_id = $1",
      { bind: [accountId] },
    );
    const service = otherSyncService(ctx);
    expect(await service.syncAccount(accountId)).to.include({ outcome: 'skipped' });
    expect(await service.runDueAccounts({ accountIds: [accountId] })).to.deep.equal([]);
    expect(await storedEmails(ctx, accountId)).to.deep.equal([]);

    await ctx.db.sequelize.query("UPDATE mail_sync_states SET locked_until = now() - interval '1 second' WHERE email_account_id = $1", { bind: [accountId] });
    const [result] = await service.runDueAccounts({ accountIds: [accountId] });
    expect(result).to.include({ outcome: 'ok', mode: 'full' });
    expect(await snapshot(accountId)).to.deep.equal(expected);
    expect(await syncState(ctx, accountId)).to.include({ status: 'ok', locked_by: null });
  });

  it('lets only one of two concurrent instances sync an account', async () => {
    const accountId = await newAccount();
    const [a, b] = await Promise.all([otherSyncService(ctx, { batchSize: 2 }).syncAccount(accountId), otherSyncService(ctx, { batchSize: 2 }).syncAccount(accountId)]);
    const full = [a, b].filter((r) => r.mode === 'full');
    expect(full, JSON.stringify([a, b])).to.have.length(1);
    expect(full[0].outcome).to.equal('ok');
    const other = full[0] === a ? b : a;
    // The other one either found the lease taken or, arriving after, found nothing new.
    expect(other.outcome === 'skipped' || (other.outcome === 'ok' && other.stored === 0), JSON.stringify(other)).to.equal(true);
    expect(await snapshot(accountId)).to.deep.equal(expected);
  });

  it('a first sync that meets a row stored meanwhile by another writer writes that page again as an upsert', async () => {
    const accountId = await newAccount();
    // The real repository, with a record of how each batch was inserted.
    const mailStore = new MailStoreRepository(new Sql(ctx.db.sequelize));
    const batches: Array<{ allNew: boolean; jmapIds: string[] }> = [];
    const upsertEmails = mailStore.upsertEmails.bind(mailStore);
    mailStore.upsertEmails = (account, rows, tx, options) => {
      batches.push({ allNew: options?.allNew ?? false, jmapIds: rows.map((r) => r.mapped.jmapId) });
      return upsertEmails(account, rows, tx, options);
    };
    let planted: string | undefined;
    const result = await new SyncService({ ...syncDeps(ctx), mailStore }, { batchSize: 2 }).syncAccount(accountId, {
      onProgress: async () => {
        if (planted) return;
        // As the sent-email writer would: a row for an email of a later page, stored outside the sync
        // (the same immutable email, so the same subject; filed under some contact, read state stale).
        const written = new Set(batches.flatMap((b) => b.jmapIds));
        planted = referenceJmapIds.find((id) => !written.has(id))!;
        const subject = (expected as unknown[][]).find((row) => row[0] === planted)![1];
        await ctx.db.sequelize.query(
          `INSERT INTO emails (user_id, email_account_id, contact_id, jmap_id, subject, is_read)
           SELECT a.user_id, a.id, c.id, $2, $3, false FROM email_accounts a JOIN contacts c ON c.email_account_id = a.id
            WHERE a.id = $1 LIMIT 1`,
          { bind: [accountId, planted, subject] },
        );
      },
    });
    expect(result.outcome, JSON.stringify(result)).to.equal('ok');
    // Inserted plainly first (an empty mailbox), refused by the unique key, then written as an upsert; so is the rest.
    expect(batches.filter((b) => b.jmapIds.includes(planted!)).map((b) => b.allNew)).to.deep.equal([true, false]);
    const withRows = batches.filter((b) => b.jmapIds.length > 0);
    expect(withRows[0].allNew).to.equal(true);
    expect(withRows.at(-1)!.allNew).to.equal(false);
    expect(await snapshot(accountId)).to.deep.equal(expected);
    expect(await contactsOf(accountId)).to.deep.equal(expectedContacts);
  });

  it('commits every batch without waiting for the disk (set by the lease renewal, inside the batch)', async () => {
    const accountId = await newAccount();
    const mailStore = new MailStoreRepository(new Sql(ctx.db.sequelize));
    const settings: string[] = [];
    const lookupAddresses = mailStore.lookupAddresses.bind(mailStore);
    // The first statement after the lease renewal in each batch's transaction.
    mailStore.lookupAddresses = async (account, addresses, tx) => {
      const rows = await ctx.db.sequelize.query<{ synchronous_commit: string }>('SHOW synchronous_commit', { transaction: tx, type: QueryTypes.SELECT });
      settings.push(rows[0].synchronous_commit);
      return lookupAddresses(account, addresses, tx);
    };
    const result = await new SyncService({ ...syncDeps(ctx), mailStore }, { batchSize: 4 }).syncAccount(accountId);
    expect(result.outcome, JSON.stringify(result)).to.equal('ok');
    expect(settings.length).to.be.at.least(4);
    expect([...new Set(settings)]).to.deep.equal(['off']);
    expect(await snapshot(accountId)).to.deep.equal(expected);
  });

  it('loses nothing that arrives while a full sync is paging', async () => {
    const accountId = await newAccount();
    let added = false;
    const result = await otherSyncService(ctx, { batchSize: 2 }).syncAccount(accountId, {
      onProgress: async () => {
        if (added) return;
        added = true;
        // Newest of all: it sorts above the pages already done, so only Email/changes can bring it.
        await put(mail, 'INBOX', { from: { name: 'Late', email: 'late@people.example' }, to: mail.user, subject: 'Late arrival', body: 'late', date: day(20) });
      },
    });
    expect(result.outcome).to.equal('ok');
    const subjects = (await storedEmails(ctx, accountId)).map((e) => e.subject);
    expect(subjects).to.include('Late arrival');
    expect(subjects).to.have.length(11);
  });
});
