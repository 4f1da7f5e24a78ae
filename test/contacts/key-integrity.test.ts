/**
 * emails.contact_id, the (email_account_id, user_id) owner keys and email_contacts.contact_id are
 * foreign keys (migration 0018), on the real database: a row naming a missing contact or account is
 * refused; deleting a contact or an account takes its emails and links along; and a writer holds what
 * it names, so a concurrent delete waits for it and then removes the new rows too.
 */
import { expect } from 'chai';
import pg from 'pg';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../src/app/context.js';
import type { EmailAccount } from '../../src/models/index.js';
import { createContact, createEmail, createEmailAccount } from '../support/email-factories.js';
import { createUser } from '../support/factories.js';
import { testContext } from '../support/harness.js';
import { waitsOnLock } from '../support/lock-waits.js';
import { requireDatabaseUrl } from '../support/test-env.js';

const MISSING = '00000000-0000-4000-8000-000000000000';

describe('contacts: email keys to contacts and accounts are foreign keys', function () {
  let ctx: AppContext;

  before(async () => {
    ctx = await testContext();
  });

  const count = async (sql: string, bind: unknown[]) =>
    (await ctx.db.sequelize.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, { bind, type: QueryTypes.SELECT }))[0].n;
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (e: { parent?: { code?: string } }) => e.parent?.code,
    );
  const insertEmail = (account: EmailAccount, contactId: string, accountId = account.id, transaction?: unknown) =>
    ctx.db.sequelize.query(`INSERT INTO emails (user_id, email_account_id, contact_id, jmap_id, subject, is_read) VALUES ($1, $2, $3, $4, 'x', false) RETURNING id`, {
      bind: [account.userId, accountId, contactId, `M${Math.random().toString(16).slice(2)}`],
      type: QueryTypes.SELECT,
      transaction: transaction as never,
    });
  /** Rows anywhere that name a contact or an account that does not exist. */
  const orphans = () =>
    count(
      `(SELECT 1 FROM emails e WHERE NOT EXISTS (SELECT 1 FROM contacts c WHERE c.id = e.contact_id)
                                 OR NOT EXISTS (SELECT 1 FROM email_accounts a WHERE a.id = e.email_account_id)
        UNION ALL SELECT 1 FROM email_contacts l WHERE NOT EXISTS (SELECT 1 FROM contacts c WHERE c.id = l.contact_id)) o`,
      [],
    );

  async function mailbox() {
    const user = await createUser();
    const account = await createEmailAccount(user);
    const [main, other] = [await createContact(account), await createContact(account)];
    const [first, second] = [await createEmail(account, main, { participants: [other] }), await createEmail(account, other)];
    return { account, main, other, first, second };
  }

  it('refuses emails and links that name a missing contact or account, on insert and on update (23503)', async () => {
    const { account, main, first } = await mailbox();
    expect(await codeOf(insertEmail(account, MISSING))).to.equal('23503');
    expect(await codeOf(insertEmail(account, main.id, MISSING))).to.equal('23503');
    const link = `INSERT INTO email_contacts (email_id, contact_id, email_date, is_read) VALUES ($1, $2, now(), false)`;
    expect(await codeOf(ctx.db.sequelize.query(link, { bind: [first.id, MISSING] }))).to.equal('23503');
    expect(await codeOf(ctx.db.sequelize.query('UPDATE emails SET contact_id = $2 WHERE id = $1', { bind: [first.id, MISSING] }))).to.equal('23503');
    expect(await codeOf(ctx.db.sequelize.query('UPDATE emails SET email_account_id = $2 WHERE id = $1', { bind: [first.id, MISSING] }))).to.equal('23503');
    expect(
      await codeOf(ctx.db.sequelize.query('UPDATE email_contacts SET contact_id = $2 WHERE email_id = $1 AND contact_id = $3', { bind: [first.id, MISSING, main.id] })),
    ).to.equal('23503');
    // Updates that leave the keys alone, or name rows that exist, go through.
    expect(await codeOf(ctx.db.sequelize.query('UPDATE emails SET is_read = true WHERE id = $1', { bind: [first.id] }))).to.equal('ok');
    expect(await codeOf(insertEmail(account, main.id))).to.equal('ok');
    expect(await orphans()).to.equal(0);
  });

  it('deleting a contact deletes the emails filed under it and its links on other emails; deleting an account deletes its emails', async () => {
    const { other, first, second } = await mailbox();
    await ctx.db.sequelize.query('DELETE FROM contacts WHERE id = $1', { bind: [other.id] });
    // The email filed under it is gone; the one where it was only a participant stays, without that link.
    expect(await count('emails WHERE id = ANY($1::uuid[])', [[first.id, second.id]])).to.equal(1);
    expect(await count('email_contacts WHERE email_id = $1', [first.id])).to.equal(1);
    expect(await count('email_contacts WHERE contact_id = $1', [other.id])).to.equal(0);

    const byAccount = await mailbox();
    await ctx.db.sequelize.query('DELETE FROM email_accounts WHERE id = $1', { bind: [byAccount.account.id] });
    expect(await count('emails WHERE email_account_id = $1', [byAccount.account.id])).to.equal(0);
    expect(await orphans()).to.equal(0);
  });

  /**
   * A transaction files a new email under a contact of `account`; meanwhile another connection runs
   * `remove`. It must wait for the transaction (the lock a key's check would take) and then take the
   * new email along.
   */
  async function removeWhileWriting(remove: string, bind: unknown[], account: EmailAccount, contactId: string): Promise<void> {
    const deleter = new pg.Client({ connectionString: requireDatabaseUrl() });
    await deleter.connect();
    try {
      const { rows } = await deleter.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const tx = await ctx.db.sequelize.transaction();
      let removed: Promise<unknown>;
      let waited = false;
      try {
        await insertEmail(account, contactId, account.id, tx);
        removed = deleter.query(remove, bind);
        waited = await waitsOnLock(ctx, rows[0].pid, remove);
      } finally {
        await tx.commit();
      }
      await removed;
      expect(waited, `"${remove}" did not wait for the writing transaction`).to.equal(true);
    } finally {
      await deleter.end();
    }
  }

  it('a concurrent contact delete waits for a transaction that files an email under it, then takes that email along', async () => {
    const { account, main } = await mailbox();
    await removeWhileWriting('DELETE FROM contacts WHERE id = $1', [main.id], account, main.id);
    expect(await count('emails WHERE contact_id = $1', [main.id])).to.equal(0);
    expect(await orphans()).to.equal(0);
  });

  it('so does a concurrent delete of the email account', async () => {
    const { account, main } = await mailbox();
    await removeWhileWriting('DELETE FROM email_accounts WHERE id = $1', [account.id], account, main.id);
    expect(await count('emails WHERE email_account_id = $1', [account.id])).to.equal(0);
    expect(await orphans()).to.equal(0);
  });
});
