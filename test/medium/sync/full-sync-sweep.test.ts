/**
 * The sweep at the end of a full sync (docs/adr/0123): rows of mail the pass did not see are deleted,
 * from what it recorded as seen (full_sync_seen) rather than a generation written into every row. Real
 * Cyrus, real PostgreSQL. Row ids are compared: a row deleted and brought back by the incremental sync
 * that follows would have a new id (and lose what hangs on it).
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../../src/app/context.js';
import { Sql } from '../../../src/db/sql.js';
import { sequelizeTransactions } from '../../../src/db/transactions.js';
import type { Email } from '../../../src/jmap/index.js';
import { EMAIL_GET_ARGS } from '../../../src/sync/jmap-sync-calls.js';
import { MailStoreRepository } from '../../../src/sync/mail-store-repository.js';
import { SentEmailWriter } from '../../../src/sync/sent-email-writer.js';
import { testContext } from '../../support/harness.js';
import { crmUser, emailIdByMessageId, emailSet, freshMailUser, jmapAs, mailboxIdByRole, otherSyncService, put, syncState, type MailUser } from '../../sync/helpers.js';

const day = (n: number) => new Date(Date.UTC(2024, 6, n, 8, 0, 0));

describe('full sync sweep: what it deletes, and what it must not', function () {
  this.timeout(90_000);
  let ctx: AppContext;
  let mail: MailUser;
  const run = randomBytes(3).toString('hex');
  const mid = (name: string) => `${name}-${run}@sweep.test`;

  /** jmap_id → row id of every email of the account. */
  async function rowIds(accountId: string): Promise<Map<string, string>> {
    const rows = await ctx.db.sequelize.query<{ id: string; jmap_id: string }>('SELECT id, jmap_id FROM emails WHERE email_account_id = $1', {
      bind: [accountId],
      type: QueryTypes.SELECT,
    });
    return new Map(rows.map((r) => [r.jmap_id, r.id]));
  }

  async function seenRows(accountId: string): Promise<number> {
    const [row] = await ctx.db.sequelize.query<{ n: number }>('SELECT count(*)::int AS n FROM full_sync_seen WHERE email_account_id = $1', {
      bind: [accountId],
      type: QueryTypes.SELECT,
    });
    return row.n;
  }

  /** A new CRM account on the shared mailbox, synced once in full (the test then forces the next full sync). */
  async function syncedAccount(): Promise<string> {
    const owner = await crmUser();
    const account = await ctx.services.emailAccounts.add(owner.fixture.user.id, { email: mail.user, emailPassword: mail.pass }, { actor: 'test' }, { requestSync: false });
    expect(await otherSyncService(ctx).syncAccount(account.id)).to.include({ outcome: 'ok', mode: 'full' });
    return account.id;
  }

  /** The server cannot calculate changes from this state: the next run is a full sync of a mailbox with rows. */
  async function forceFullSync(accountId: string): Promise<void> {
    await ctx.db.sequelize.query("UPDATE mail_sync_states SET email_state = 'not-a-state' WHERE email_account_id = $1", { bind: [accountId] });
  }

  before(async () => {
    ctx = await testContext();
    mail = await freshMailUser('sweep');
    const me = { email: mail.user };
    for (let i = 1; i <= 7; i++) {
      await put(mail, 'INBOX', {
        from: { name: `Person ${i}`, email: `p${i}@sweep.example` },
        to: me,
        subject: `Mail ${i}`,
        body: `Body ${i}`,
        messageId: mid(`m${i}`),
        date: day(i),
      });
    }
  });

  it('deletes nothing it saw when interrupted and resumed by another process', async () => {
    const accountId = await syncedAccount();
    const before = await rowIds(accountId);
    expect(before.size).to.equal(7);
    await forceFullSync(accountId);

    const first = otherSyncService(ctx, { batchSize: 2 });
    const stopped = await first.syncAccount(accountId, {
      onProgress: () => {
        void first.shutdown(); // SIGTERM during the first page of the full sync
      },
    });
    expect(stopped).to.include({ outcome: 'interrupted', mode: 'full', fetched: 2 });
    const checkpoint = (await syncState(ctx, accountId)).full_sync_checkpoint as { anchor: string | null; startedEmpty?: boolean };
    expect(checkpoint.anchor).to.be.a('string');
    expect(checkpoint.startedEmpty).to.equal(false);
    expect(await seenRows(accountId), 'the first page is recorded durably').to.equal(2);

    // Another process: nothing of the first one's memory, only what the database kept.
    const resumed = await otherSyncService(ctx, { batchSize: 3 }).syncAccount(accountId);
    expect(resumed).to.include({ outcome: 'ok', mode: 'full', fetched: 5, deleted: 0 });
    expect(await rowIds(accountId)).to.deep.equal(before);
    expect(await seenRows(accountId), 'forgotten once swept').to.equal(0);
    expect((await syncState(ctx, accountId)).full_sync_checkpoint).to.equal(null);
  });

  it('keeps a sent email stored while the full sync pages, under the same row', async () => {
    const accountId = await syncedAccount();
    await forceFullSync(accountId);
    const jmap = jmapAs(mail);
    const sentMailbox = await mailboxIdByRole(jmap, 'sent');
    const excludedIds = await Promise.all(['trash', 'junk', 'drafts'].map((role) => mailboxIdByRole(jmap, role)));
    const writer = new SentEmailWriter(new MailStoreRepository(new Sql(ctx.db.sequelize)), sequelizeTransactions(ctx.db.sequelize));
    const [account] = await ctx.db.sequelize.query<{ user_id: string }>('SELECT user_id FROM email_accounts WHERE id = $1', { bind: [accountId], type: QueryTypes.SELECT });
    let sentRowId: string | null = null;
    const result = await otherSyncService(ctx, { batchSize: 2 }).syncAccount(accountId, {
      onProgress: async () => {
        if (sentRowId) return;
        // As sending does: the message is on the server (newest of all, so above the pages already
        // done: the full sync does not see it), then stored at once from the server's own copy.
        await put(
          mail,
          'Sent',
          {
            from: { email: mail.user },
            to: { name: 'Recipient', email: 'recipient@sweep.example' },
            subject: 'Sent meanwhile',
            body: 'sent',
            messageId: mid('sent'),
            date: day(20),
          },
          ['\\Seen'],
        );
        const jmapId = await emailIdByMessageId(jmap, mid('sent'));
        const got = await jmap.callOne<{ list: Email[] }>('Email/get', { accountId: await jmap.mailAccountId(), ids: [jmapId], ...EMAIL_GET_ARGS });
        sentRowId = await writer.record({ id: accountId, userId: account.user_id, ownAddresses: [mail.user] }, got.list[0], { sentId: sentMailbox, excludedIds }, async () => {});
        expect(sentRowId).to.be.a('string');
      },
    });
    expect(result).to.include({ outcome: 'ok', mode: 'full', deleted: 0 });
    const ids = await rowIds(accountId);
    expect(ids.size).to.equal(8);
    expect([...ids.values()]).to.include(sentRowId);
    expect(await seenRows(accountId)).to.equal(0);
  });

  it('deletes an email deleted on the server at the next full sync, and only that one', async () => {
    const accountId = await syncedAccount();
    const jmap = jmapAs(mail);
    const doomed = await emailIdByMessageId(jmap, mid('m3'));
    const before = await rowIds(accountId);
    expect(before.has(doomed)).to.equal(true);
    await emailSet(jmap, { destroy: [doomed] });
    await forceFullSync(accountId);

    const result = await otherSyncService(ctx, { batchSize: 3 }).syncAccount(accountId);
    expect(result).to.include({ outcome: 'ok', mode: 'full', deleted: 1 });
    const after = await rowIds(accountId);
    before.delete(doomed);
    expect(after).to.deep.equal(before);
    expect(await seenRows(accountId)).to.equal(0);
  });
});
