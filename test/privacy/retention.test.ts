import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../src/app/context.js';
import { Sql } from '../../src/db/sql.js';
import { sequelizeTransactions } from '../../src/db/transactions.js';
import { EmailRetention } from '../../src/privacy/email-retention.js';
import { EmailRetentionRepository } from '../../src/privacy/email-retention-repository.js';
import { createEmailAccount } from '../support/email-factories.js';
import { testContext } from '../support/harness.js';
import { crmUser, freshMailUser, put, storedContacts, storedEmails, type MailUser } from '../sync/helpers.js';

const DAY_MS = 24 * 3600 * 1000;

/**
 * EMAIL_RETENTION_DAYS against the real Cyrus: the sync does not store mail older than the period
 * (first sync and later runs), and the retention job deletes the CRM's copy of what has grown old,
 * keeping the contacts (and their notes) unless told to delete the empty ones. The job is run scoped
 * to this file's account: the suite's database holds other files' old mail.
 */
describe('privacy: email retention (EMAIL_RETENTION_DAYS)', function () {
  this.timeout(60_000);
  const run = randomBytes(4).toString('hex');
  const OLD = `old-${run}@clients.example`;
  const FRESH = `fresh-${run}@clients.example`;
  let ctx: AppContext;
  let retained: AppContext;
  let mail: MailUser;
  let accountId: string;

  const subjects = async () => (await storedEmails(ctx, accountId)).map((e) => e.subject).sort();
  const contact = async (email: string) => (await storedContacts(ctx, accountId)).find((c) => c.email === email);
  const retention = (deleteEmptyContacts: boolean) =>
    new EmailRetention(new EmailRetentionRepository(new Sql(ctx.db.sequelize)), sequelizeTransactions(ctx.db.sequelize), { days: 30, deleteEmptyContacts });
  /** A full resync by a sync without retention: the old mail is back in the CRM, as before the setting was on. */
  const resyncWithoutRetention = async () => {
    await ctx.db.sequelize.query('UPDATE mail_sync_states SET email_state = NULL WHERE email_account_id = $1', { bind: [accountId] });
    expect((await ctx.services.mailSync.syncAccount(accountId)).outcome).to.equal('ok');
  };

  before(async () => {
    ctx = await testContext();
    retained = await testContext({ EMAIL_RETENTION_DAYS: '30' });
  });

  // Every test gets its own mailbox (one old, one fresh message) and account, not yet synced.
  beforeEach(async () => {
    mail = await freshMailUser('retention');
    await put(mail, 'INBOX', { from: OLD, to: mail.user, subject: 'Old order', body: 'From long ago.', date: new Date(Date.now() - 400 * DAY_MS) });
    await put(mail, 'INBOX', { from: FRESH, to: mail.user, subject: 'Fresh order', body: 'From yesterday.', date: new Date(Date.now() - DAY_MS) });
    const owner = await crmUser();
    accountId = (await createEmailAccount(owner.fixture, { email: mail.user, password: mail.pass, jmapAccountId: mail.user })).id;
  });

  it('is off by default and validated', () => {
    expect(ctx.config.emailRetention).to.deep.equal({ days: undefined, deleteEmptyContacts: false });
    expect(retained.config.emailRetention.days).to.equal(30);
  });

  it('the first sync skips mail older than the retention period', async () => {
    const result = await retained.services.mailSync.syncAccount(accountId);
    expect(result.outcome).to.equal('ok');
    expect(await subjects()).to.deep.equal(['Fresh order']);
    expect(await contact(OLD)).to.equal(undefined);
  });

  it('a later incremental run skips old mail too and stores new mail', async () => {
    expect((await retained.services.mailSync.syncAccount(accountId)).outcome).to.equal('ok');
    await put(mail, 'INBOX', { from: OLD, to: mail.user, subject: 'Old reminder', body: 'Also old.', date: new Date(Date.now() - 100 * DAY_MS) });
    await put(mail, 'INBOX', { from: FRESH, to: mail.user, subject: 'Fresh reminder', body: 'Today.', date: new Date() });
    const result = await retained.services.mailSync.syncAccount(accountId);
    expect(result.mode).to.equal('incremental');
    expect(await subjects()).to.deep.equal(['Fresh order', 'Fresh reminder']);
  });

  it('the retention job deletes old mail from the CRM only; the emptied contact keeps its notes', async () => {
    await put(mail, 'INBOX', { from: OLD, to: mail.user, subject: 'Old reminder', body: 'Also old.', date: new Date(Date.now() - 100 * DAY_MS) });
    await resyncWithoutRetention();
    expect(await subjects()).to.deep.equal(['Fresh order', 'Old order', 'Old reminder']);
    await ctx.db.sequelize.query('UPDATE contacts SET notes = $1 WHERE email_account_id = $2 AND email = $3', { bind: ['Long-time customer', accountId, OLD] });

    const pruned = await retention(false).prune(new Date(), { accountIds: [accountId] });
    expect(pruned).to.deep.equal({ emails: 2, contacts: 0 });
    expect(await subjects()).to.deep.equal(['Fresh order']);
    const old = await contact(OLD);
    expect(old?.last_email_at).to.equal(null);
    const [row] = await ctx.db.sequelize.query<{ notes: string }>('SELECT notes FROM contacts WHERE email_account_id = $1 AND email = $2', {
      bind: [accountId, OLD],
      type: QueryTypes.SELECT,
    });
    expect(row.notes).to.equal('Long-time customer');
    // The mail server still has everything.
    await resyncWithoutRetention();
    expect(await subjects()).to.have.length(3);
  });

  it('with EMAIL_RETENTION_DELETE_EMPTY_CONTACTS the contacts left without email go too', async () => {
    await resyncWithoutRetention();
    expect(await subjects()).to.deep.equal(['Fresh order', 'Old order']);
    const pruned = await retention(true).prune(new Date(), { accountIds: [accountId] });
    expect(pruned).to.deep.equal({ emails: 1, contacts: 1 });
    expect((await storedContacts(ctx, accountId)).map((c) => c.email)).to.deep.equal([FRESH]);
    expect(await subjects()).to.deep.equal(['Fresh order']);
  });
});
