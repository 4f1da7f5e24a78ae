/**
 * The sync's writer leaves a stored email alone when the mail says nothing new about it (issue 36,
 * resync cost): no new row version (same xmin), no event. It still writes when anything it refreshes
 * differs: the read state, a column stored NULL by an older release that the mail now fills (what
 * `crm-admin sync resync` relies on), and a new contact's link. A full sync under way records what it
 * saw beside the row (full_sync_seen, docs/adr/0123), never in it.
 */
import { expect } from 'chai';
import { Sql } from '../../../src/db/sql.js';
import { writeEmails } from '../../../src/sync/batch-writer.js';
import type { MappedEmail } from '../../../src/sync/email-mapper.js';
import { MailStoreRepository } from '../../../src/sync/mail-store-repository.js';
import { createEmailAccount } from '../../support/email-factories.js';
import { createUser } from '../../support/factories.js';
import { testContext } from '../../support/harness.js';

function mail(overrides: Partial<MappedEmail> = {}): MappedEmail {
  const who = 'klient@partner.test';
  return {
    jmapId: 'M-unchanged-1',
    included: true,
    messageId: '<unchanged-1@bench.test>',
    threadId: 'T1',
    inReplyTo: null,
    from: `Klient <${who}>`,
    to: 'Tím <tim@firma.test>',
    subject: 'Faktúra č. 1',
    body: 'Dobrý deň, posielam faktúru.',
    isRead: false,
    date: new Date('2026-03-01T10:00:00Z'),
    participants: [who],
    correspondents: [{ email: who, name: 'Klient' }],
    attachments: [],
    hasAttachments: false,
    outbound: false,
    addresses: { from: [{ name: 'Klient', email: who }], to: [{ name: 'Tím', email: 'tim@firma.test' }], cc: [], replyTo: [] },
    ...overrides,
  };
}

describe('sync writer: unchanged emails are not written again', function () {
  this.timeout(60_000);
  let sql: Sql;
  let store: MailStoreRepository;
  let account: { id: string; userId: string };

  const write = async (m: MappedEmail, recordSeen = false) => {
    const ctx = await testContext();
    return ctx.db.sequelize.transaction((tx) => writeEmails(store, account, { emails: [m], recordSeen }, tx));
  };
  const row = async () =>
    (await sql.one<{ version: string; is_read: boolean; addresses: unknown; links: number; events: number; seen: boolean }>(
      `SELECT e.xmin::text AS version, e.is_read, e.addresses,
              EXISTS (SELECT 1 FROM full_sync_seen f WHERE f.email_account_id = e.email_account_id AND f.jmap_id = e.jmap_id) AS seen,
              (SELECT count(*)::int FROM email_contacts l WHERE l.email_id = e.id) AS links,
              (SELECT count(*)::int FROM events v WHERE v.email_account_id = e.email_account_id AND v.type = 'email.updated') AS events
         FROM emails e WHERE e.email_account_id = $accountId AND e.jmap_id = 'M-unchanged-1'`,
      { accountId: account.id },
    ))!;

  before(async () => {
    const ctx = await testContext();
    sql = new Sql(ctx.db.sequelize);
    store = new MailStoreRepository(sql);
    const owner = await createUser();
    const created = await createEmailAccount(owner);
    account = { id: created.id, userId: owner.user.id };
  });

  it('leaves the row as it is when the same mail is written again, and still reports it stored', async () => {
    expect((await write(mail())).emailsCreated).to.equal(1);
    const first = await row();
    const again = await write(mail());
    expect(again).to.include({ stored: 1, emailsCreated: 0 });
    expect(await row()).to.deep.equal(first);
  });

  it('writes when the read state differs', async () => {
    const before = await row();
    await write(mail({ isRead: true }));
    const read = await row();
    expect(read.version).not.to.equal(before.version);
    expect(read.is_read).to.equal(true);
    expect(read.events).to.equal(before.events + 1);
  });

  it('leaves the row as it is when a full sync under way sees it again, and records it seen beside the row', async () => {
    const before = await row();
    expect(before.seen).to.equal(false);
    expect(await write(mail({ isRead: true }), true)).to.include({ stored: 1, emailsCreated: 0 });
    const seen = await row();
    expect(seen.version).to.equal(before.version);
    expect(seen.seen).to.equal(true);
    await sql.execute('DELETE FROM full_sync_seen WHERE email_account_id = $accountId', { accountId: account.id });
  });

  it('fills a column an older release left NULL when the mail has a value for it', async () => {
    await sql.execute(`UPDATE emails SET addresses = NULL WHERE email_account_id = $accountId AND jmap_id = 'M-unchanged-1'`, { accountId: account.id });
    const empty = await row();
    expect(empty.addresses).to.equal(null);
    await write(mail({ isRead: true }));
    const filled = await row();
    expect(filled.version).not.to.equal(empty.version);
    expect(filled.addresses).to.deep.equal(mail().addresses);
  });

  it('links a known contact that the mail now names to an email that is otherwise unchanged', async () => {
    const other = 'kolega@partner.test';
    // The colleague is a contact already (from another email): only the unchanged row's links can add them here.
    await write(mail({ jmapId: 'M-unchanged-2', messageId: '<unchanged-2@bench.test>', participants: [other], correspondents: [{ email: other, name: 'Kolega' }] }));
    const before = await row();
    await write(
      mail({
        isRead: true,
        participants: ['klient@partner.test'],
        correspondents: [
          { email: 'klient@partner.test', name: 'Klient' },
          { email: other, name: 'Kolega' },
        ],
      }),
    );
    const after = await row();
    expect(after.version).to.equal(before.version);
    expect(after.links).to.equal(before.links + 1);
  });
});
