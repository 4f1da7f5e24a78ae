/**
 * Links between emails and contacts without a foreign key on email_id (migration 0013): what the key
 * guaranteed still holds, on the real database. A link never points at a missing email: inserting
 * one is refused, every way of deleting emails takes their links along, and the writers that link
 * emails they did not write themselves lock them, so a concurrent delete cannot strand a link.
 */
import { expect } from 'chai';
import pg from 'pg';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../src/app/context.js';
import { ContactRepository } from '../../src/contacts/contact-repository.js';
import { Sql } from '../../src/db/sql.js';
import type { Tx } from '../../src/db/transactions.js';
import { MailStoreRepository } from '../../src/sync/mail-store-repository.js';
import type { EmailAccount } from '../../src/models/index.js';
import { createContact, createEmail, createEmailAccount } from '../support/email-factories.js';
import { createUser, uniqueName } from '../support/factories.js';
import { testContext } from '../support/harness.js';
import { waitsOnLock } from '../support/lock-waits.js';
import { requireDatabaseUrl } from '../support/test-env.js';

describe('contacts: email links kept whole without a foreign key', function () {
  let ctx: AppContext;
  let sql: Sql;

  before(async () => {
    ctx = await testContext();
    sql = new Sql(ctx.db.sequelize);
  });

  async function linksOf(emailIds: string[]): Promise<number> {
    const [row] = await ctx.db.sequelize.query<{ n: number }>('SELECT count(*)::int AS n FROM email_contacts WHERE email_id = ANY($ids::uuid[])', {
      bind: { ids: emailIds },
      type: QueryTypes.SELECT,
    });
    return row.n;
  }

  async function strandedLinks(): Promise<number> {
    const [row] = await ctx.db.sequelize.query<{ n: number }>('SELECT count(*)::int AS n FROM email_contacts l WHERE NOT EXISTS (SELECT 1 FROM emails e WHERE e.id = l.email_id)', {
      type: QueryTypes.SELECT,
    });
    return row.n;
  }

  async function accountWithMail(): Promise<{ account: EmailAccount; userId: string; emailIds: string[]; contactId: string }> {
    const user = await createUser();
    const account = await createEmailAccount(user);
    const contact = await createContact(account);
    const other = await createContact(account);
    const emails = [await createEmail(account, contact, { participants: [other] }), await createEmail(account, other)];
    return { account, userId: user.user.id, emailIds: emails.map((e) => e.id), contactId: contact.id };
  }

  it('refuses a link to an email that does not exist, as the foreign key did (23503)', async () => {
    const { contactId } = await accountWithMail();
    const missing = '00000000-0000-4000-8000-000000000000';
    const err = await ctx.db.sequelize
      .query('INSERT INTO email_contacts (email_id, contact_id, email_date, is_read) VALUES ($1, $2, now(), false)', { bind: [missing, contactId] })
      .catch((e: { parent?: { code?: string } }) => e);
    expect((err as { parent?: { code?: string } }).parent?.code).to.equal('23503');
    expect(await linksOf([missing])).to.equal(0);
  });

  it('removes the links of deleted emails, whoever deletes them: a statement, a contact, the account, the user', async () => {
    const byStatement = await accountWithMail();
    expect(await linksOf(byStatement.emailIds)).to.equal(3);
    await ctx.db.sequelize.query('DELETE FROM emails WHERE id = $1', { bind: [byStatement.emailIds[0]] });
    expect(await linksOf(byStatement.emailIds)).to.equal(1);

    // A contact's deletion cascades to the emails filed under it, and those take their other links along.
    const byContact = await accountWithMail();
    await ctx.db.sequelize.query('DELETE FROM contacts WHERE id = $1', { bind: [byContact.contactId] });
    expect(await linksOf(byContact.emailIds)).to.equal(1);

    const byAccount = await accountWithMail();
    await ctx.db.sequelize.query('DELETE FROM email_accounts WHERE id = $1', { bind: [byAccount.account.id] });
    expect(await linksOf(byAccount.emailIds)).to.equal(0);

    // emails.user_id has no key of its own either: the user's accounts take the emails along.
    const byUser = await accountWithMail();
    await ctx.db.sequelize.query('DELETE FROM users WHERE id = $1', { bind: [byUser.userId] });
    const [left] = await ctx.db.sequelize.query<{ n: number }>('SELECT count(*)::int AS n FROM emails WHERE id = ANY($ids::uuid[])', {
      bind: { ids: byUser.emailIds },
      type: QueryTypes.SELECT,
    });
    expect(left.n).to.equal(0);
    expect(await linksOf(byUser.emailIds)).to.equal(0);
    expect(await strandedLinks()).to.equal(0);
  });

  /**
   * `link` runs in an open transaction; meanwhile another connection deletes the email. That delete
   * must wait for the transaction (the lock a foreign key would take) and then remove the new link.
   */
  async function deleteWhileLinking(emailId: string, link: (tx: Tx) => Promise<void>): Promise<{ waited: boolean }> {
    const deleter = new pg.Client({ connectionString: requireDatabaseUrl() });
    await deleter.connect();
    try {
      const { rows } = await deleter.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const tx = await ctx.db.sequelize.transaction();
      let deleted: Promise<unknown>;
      let waited = false;
      try {
        await link(tx);
        const statement = 'DELETE FROM emails WHERE id = $1';
        deleted = deleter.query(statement, [emailId]);
        // Until it is blocked on our lock, or done (then nothing held it back).
        waited = await waitsOnLock(ctx, rows[0].pid, statement);
      } finally {
        await tx.commit();
      }
      await deleted;
      return { waited };
    } finally {
      await deleter.end();
    }
  }

  /**
   * An email of a new account that names `address` among its participants, a contact for that
   * address, and `link` run for it while another connection deletes the email. Inside the linking
   * transaction the link exists and the contact's last_email_at is the email's date; the delete waits
   * for that transaction and takes the link along.
   */
  async function linkWhileDeleting(link: (contactId: string, tx: Tx) => Promise<void>): Promise<void> {
    const { account, emailIds } = await accountWithMail();
    const [email] = emailIds;
    const address = `${uniqueName('neskoro')}@partner.test`;
    await ctx.db.sequelize.query('UPDATE emails SET participants = ARRAY[$1] WHERE id = $2', { bind: [address, email] });
    const contact = await createContact(account, { email: address });

    const { waited } = await deleteWhileLinking(email, async (tx) => {
      await link(contact.id, tx);
      const [seen] = await ctx.db.sequelize.query<{ links: number; current: boolean }>(
        `SELECT (SELECT count(*)::int FROM email_contacts WHERE email_id = $1 AND contact_id = $2) AS links,
                (SELECT c.last_email_at = e.date FROM contacts c, emails e WHERE c.id = $2 AND e.id = $1) AS current`,
        { bind: [email, contact.id], type: QueryTypes.SELECT, transaction: tx },
      );
      expect(seen, 'linked, with last_email_at moved to the email').to.deep.equal({ links: 1, current: true });
    });
    expect(waited, 'the delete did not wait for the linking transaction').to.equal(true);
    expect(await linksOf([email])).to.equal(0);
    expect(await strandedLinks()).to.equal(0);
  }

  it('a contact added by hand locks the earlier emails it links: a concurrent delete waits, then takes the link along', async () => {
    await linkWhileDeleting((contactId, tx) => new ContactRepository(sql).linkEarlierEmails(contactId, tx));
  });

  it('so does the linking of earlier mail to contacts a sync or a sent email creates', async () => {
    await linkWhileDeleting((contactId, tx) => new MailStoreRepository(sql).linkEarlierEmails([contactId], tx));
  });
});
