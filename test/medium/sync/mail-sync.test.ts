import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import type { AppContext } from '../../../src/app/context.js';
import type { JmapClient } from '../../../src/jmap/index.js';
import { appendMessage } from '../../support/imap.js';
import { testApp, testContext } from '../../support/harness.js';
import {
  crmUser,
  emailIdByMessageId,
  emailSet,
  freshMailUser,
  jmapAs,
  linkViaApi,
  mailboxIdByRole,
  otherSyncService,
  put,
  staleLinks,
  storedContacts,
  storedEmails,
  syncState,
  type CrmUser,
  type MailUser,
} from '../../sync/helpers.js';

const day = (n: number) => new Date(Date.UTC(2024, 4, n, 9, 0, 0));
const ALICE = { name: 'Alice Nováková', email: 'alice@clients.example' };
const BOB = { name: 'Bob Builder', email: 'bob@clients.example' };
const CAROL = { name: 'Carol Partner', email: 'Carol@Partner.Example' };
const ERIN = { name: 'Erin Engineer', email: 'erin@vendor.example' };
const HEIDI = { name: 'Heidi Archive', email: 'heidi@archive.example' };
const FRANK = { name: 'Frank Trash', email: 'frank@trash.example' };

describe('mail sync against a real Cyrus mailbox', function () {
  this.timeout(60_000);
  const run = randomBytes(4).toString('hex');
  const mid = (name: string) => `${name}-${run}@crm.test`;
  let app: Express;
  let ctx: AppContext;
  let mail: MailUser;
  let owner: CrmUser;
  let jmap: JmapClient;
  let accountId: string;

  /** A mailbox with people, robots, lists, a thread, sent mail and mail where the sync must not look. */
  async function seed(): Promise<void> {
    const me = { name: 'Staff Member', email: mail.user };
    await put(mail, 'INBOX', { from: ALICE, to: me, subject: 'Project kickoff', body: 'Hello, let us start.', messageId: mid('kickoff'), date: day(1) });
    await put(
      mail,
      'INBOX',
      {
        from: ALICE,
        to: me,
        cc: BOB,
        subject: 'Re: Project kickoff',
        body: 'Bob joins us.',
        messageId: mid('reply'),
        inReplyTo: mid('kickoff'),
        date: day(5),
      },
      ['\\Seen'],
    );
    // HTML only: the stored body is the text of it.
    const html = [
      `From: "${CAROL.name}" <${CAROL.email}>`,
      `To: <${mail.user}>`,
      'Subject: Quarterly report',
      `Message-ID: <${mid('report')}>`,
      'Date: Fri, 03 May 2024 09:00:00 +0000',
      'MIME-Version: 1.0',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<html><head><style>p{color:red}</style></head><body><h1>Report</h1><p>Revenue grew <b>12%</b>.</p><script>x()</script></body></html>',
      '',
    ].join('\r\n');
    await appendMessage({ user: mail.user, pass: mail.pass, mailbox: 'INBOX', raw: html, internalDate: day(3) });
    await put(mail, 'INBOX', { from: 'news@shop.example', to: me, subject: 'Weekly deals', body: 'Buy now', headers: { 'List-Id': '<deals.shop.example>' }, date: day(2) });
    await put(mail, 'INBOX', { from: 'noreply@service.example', to: me, subject: 'Your receipt', body: 'Thanks', date: day(2) });
    await put(mail, 'INBOX', { from: 'dave@clients.example', to: me, subject: 'Out of office', body: 'Away', headers: { 'Auto-Submitted': 'auto-replied' }, date: day(2) });
    await put(mail, 'INBOX', { from: 'MAILER-DAEMON@mx.example', to: me, subject: 'Undeliverable', body: 'Bounce', date: day(2) });
    await put(mail, 'Sent', { from: me, to: BOB, cc: ERIN, subject: 'Proposal', body: 'Our offer.', messageId: mid('proposal'), date: day(4) }, ['\\Seen']);
    await put(mail, 'Sent', { from: me, to: me, subject: 'Note to self', body: 'Remember', date: day(2) }, ['\\Seen']);
    await put(mail, 'Archive', { from: HEIDI, to: me, subject: 'Archived thanks', body: 'Thanks!', messageId: mid('heidi'), date: day(6) });
    await put(mail, 'Trash', { from: FRANK, to: me, subject: 'Old stuff', body: 'Old', messageId: mid('frank'), date: day(7) });
    await put(mail, 'Junk', { from: 'spam@junk.example', to: me, subject: 'You won', body: 'Spam', date: day(7) });
    await put(mail, 'Drafts', { from: me, to: 'grace@draft.example', subject: 'Draft', body: 'Unsent', date: day(7) }, ['\\Draft']);
  }

  before(async () => {
    app = await testApp();
    ctx = await testContext();
    mail = await freshMailUser('sync');
    jmap = jmapAs(mail);
    await seed();
    owner = await crmUser();
    accountId = await linkViaApi(app, ctx, owner, mail);
  });

  it('fills contacts and emails from the first sync, exactly', async () => {
    const state = await syncState(ctx, accountId);
    expect(state.status).to.equal('ok');
    expect(state.email_state).to.be.a('string');
    expect(state.full_sync_checkpoint).to.equal(null);

    const contacts = await storedContacts(ctx, accountId);
    expect(contacts.map((c) => [c.email, c.name, c.last_email_at?.toISOString()])).to.deep.equal([
      ['alice@clients.example', ALICE.name, day(5).toISOString()],
      ['bob@clients.example', BOB.name, day(5).toISOString()],
      ['carol@partner.example', CAROL.name, day(3).toISOString()],
      ['erin@vendor.example', ERIN.name, day(4).toISOString()],
      ['heidi@archive.example', HEIDI.name, day(6).toISOString()],
    ]);

    const emails = await storedEmails(ctx, accountId);
    expect(emails.map((e) => [e.subject, e.contact_email, e.linked, e.is_read])).to.deep.equal([
      ['Archived thanks', 'heidi@archive.example', ['heidi@archive.example'], false],
      ['Project kickoff', 'alice@clients.example', ['alice@clients.example'], false],
      ['Proposal', 'bob@clients.example', ['bob@clients.example', 'erin@vendor.example'], true],
      ['Quarterly report', 'carol@partner.example', ['carol@partner.example'], false],
      ['Re: Project kickoff', 'alice@clients.example', ['alice@clients.example', 'bob@clients.example'], true],
    ]);
    const bySubject = new Map(emails.map((e) => [e.subject, e]));
    const kickoff = bySubject.get('Project kickoff')!;
    const reply = bySubject.get('Re: Project kickoff')!;
    expect(kickoff.message_id).to.equal(mid('kickoff'));
    expect(kickoff.from).to.equal(`${ALICE.name} <${ALICE.email}>`);
    expect(kickoff.to).to.equal(`Staff Member <${mail.user}>`);
    expect(kickoff.body).to.equal('Hello, let us start.');
    expect(kickoff.date!.toISOString()).to.equal(day(1).toISOString());
    expect(reply.in_reply_to).to.equal(mid('kickoff'));
    expect(reply.thread_id).to.equal(kickoff.thread_id).and.to.be.a('string');
    const report = bySubject.get('Quarterly report')!.body!;
    expect(report)
      .to.match(/REPORT/)
      .and.to.match(/Revenue grew 12%\./);
    expect(report).not.to.match(/<|color:red|x\(\)/);
    expect(await staleLinks(ctx, accountId)).to.equal(0);
  });

  it('shows the synced data over the contacts and emails API, an email under every contact in it', async () => {
    const contacts = await owner.as(request(app).get('/api/contacts').query({ emailAccountId: accountId, sort: 'name' }));
    expect(contacts.status).to.equal(200);
    const items = contacts.body.data.items as Array<{ id: string; email: string }>;
    expect(items.map((c) => c.email)).to.have.members(['alice@clients.example', 'bob@clients.example', 'carol@partner.example', 'erin@vendor.example', 'heidi@archive.example']);
    const bob = items.find((c) => c.email === 'bob@clients.example')!;
    const bobsMail = await owner.as(request(app).get('/api/emails').query({ contactId: bob.id }));
    expect(bobsMail.status).to.equal(200);
    expect((bobsMail.body.data.items as Array<{ subject: string }>).map((e) => e.subject)).to.have.members(['Proposal', 'Re: Project kickoff']);
  });

  it('brings new mail, read state, moves to and from Trash and deletions in on the next incremental run', async () => {
    const me = { name: 'Staff Member', email: mail.user };
    await put(mail, 'INBOX', { from: ALICE, to: me, subject: 'Budget question', body: 'How much?', messageId: mid('budget'), date: day(8) });
    const trash = await mailboxIdByRole(jmap, 'trash');
    const inbox = await mailboxIdByRole(jmap, 'inbox');
    await emailSet(jmap, {
      update: {
        [await emailIdByMessageId(jmap, mid('kickoff'))]: { 'keywords/$seen': true },
        [await emailIdByMessageId(jmap, mid('report'))]: { mailboxIds: { [trash]: true } },
        [await emailIdByMessageId(jmap, mid('frank'))]: { mailboxIds: { [inbox]: true } },
      },
      destroy: [await emailIdByMessageId(jmap, mid('heidi'))],
    });

    const result = await ctx.services.mailSync.syncAccount(accountId);
    expect(result.outcome).to.equal('ok');
    expect(result.mode).to.equal('incremental');
    expect(result.requests).to.be.at.most(3);

    const emails = await storedEmails(ctx, accountId);
    expect(emails.map((e) => [e.subject, e.contact_email, e.is_read])).to.deep.equal([
      ['Budget question', 'alice@clients.example', false],
      ['Old stuff', 'frank@trash.example', false],
      ['Project kickoff', 'alice@clients.example', true],
      ['Proposal', 'bob@clients.example', true],
      ['Re: Project kickoff', 'alice@clients.example', true],
    ]);
    const contacts = new Map((await storedContacts(ctx, accountId)).map((c) => [c.email, c]));
    expect(contacts.get('frank@trash.example')?.name).to.equal(FRANK.name);
    expect(contacts.get('alice@clients.example')!.last_email_at!.toISOString()).to.equal(day(8).toISOString());
    // People stay when their mail goes; what they last wrote is recomputed.
    expect(contacts.get('carol@partner.example')!.last_email_at).to.equal(null);
    expect(contacts.get('heidi@archive.example')!.last_email_at).to.equal(null);
    expect(await staleLinks(ctx, accountId)).to.equal(0);
  });

  it('does not bring back a contact the user deleted, nor file mail under it', async () => {
    const list = await owner.as(request(app).get('/api/contacts').query({ emailAccountId: accountId }));
    const alice = (list.body.data.items as Array<{ id: string; email: string }>).find((c) => c.email === 'alice@clients.example')!;
    expect((await owner.as(request(app).delete(`/api/contacts/${alice.id}`))).status).to.equal(200);
    await put(mail, 'INBOX', { from: ALICE, to: { email: mail.user }, subject: 'Are you there?', body: 'Ping', date: day(9) });

    expect((await ctx.services.mailSync.syncAccount(accountId)).outcome).to.equal('ok');
    // A full resync must not bring her back either.
    await ctx.db.sequelize.query('UPDATE mail_sync_states SET email_state = NULL WHERE email_account_id = $1', { bind: [accountId] });
    const resync = await ctx.services.mailSync.syncAccount(accountId);
    expect(resync.outcome).to.equal('ok');
    expect(resync.mode).to.equal('full');

    const contacts = (await storedContacts(ctx, accountId)).map((c) => c.email);
    expect(contacts).not.to.include('alice@clients.example');
    expect(contacts).to.include('bob@clients.example');
    const subjects = (await storedEmails(ctx, accountId)).map((e) => e.subject);
    expect(subjects).to.deep.equal(['Old stuff', 'Proposal']);
  });

  it('falls back to a full resync when the server cannot calculate changes, dropping rows the server no longer has', async () => {
    const [bob] = await ctx.db.sequelize.query<{ id: string; user_id: string }>("SELECT id, user_id FROM contacts WHERE email_account_id = $1 AND email = 'bob@clients.example'", {
      bind: [accountId],
      type: 'SELECT' as never,
    });
    await ctx.db.sequelize.query(`INSERT INTO emails (user_id, email_account_id, contact_id, jmap_id, subject) VALUES ($1, $2, $3, 'Mvanished0000', 'Vanished')`, {
      bind: [bob.user_id, accountId, bob.id],
    });
    for (const bogus of ['not-a-state', '999999999']) {
      await ctx.db.sequelize.query('UPDATE mail_sync_states SET email_state = $2 WHERE email_account_id = $1', { bind: [accountId, bogus] });
      const result = await ctx.services.mailSync.syncAccount(accountId);
      expect(result.outcome, bogus).to.equal('ok');
      expect(result.mode, bogus).to.equal('full');
      expect((await storedEmails(ctx, accountId)).map((e) => e.subject)).to.deep.equal(['Old stuff', 'Proposal']);
      expect((await syncState(ctx, accountId)).email_state).to.match(/^\d+$/);
    }
  });

  it('keeps a read state changed in the CRM until the server has been told, then follows the server', async () => {
    const proposalId = await emailIdByMessageId(jmap, mid('proposal'));
    await ctx.db.sequelize.query('UPDATE emails SET is_read = false, read_pending = true WHERE email_account_id = $1 AND jmap_id = $2', { bind: [accountId, proposalId] });
    // The server changes the email (so the sync sees it) while the CRM's change has not reached it.
    await emailSet(jmap, { update: { [proposalId]: { 'keywords/$flagged': true } } });
    const unreachableWriteBack = otherSyncService(ctx, {}, { readState: { push: async () => ({ pushed: 0, failed: 1 }) } });
    expect((await unreachableWriteBack.syncAccount(accountId)).outcome).to.equal('ok');
    let row = (await storedEmails(ctx, accountId)).find((e) => e.jmap_id === proposalId)!;
    expect([row.is_read, row.read_pending]).to.deep.equal([false, true]);

    // The real write-back runs first in the next run: the server loses $seen, the row settles.
    expect((await ctx.services.mailSync.syncAccount(accountId)).outcome).to.equal('ok');
    row = (await storedEmails(ctx, accountId)).find((e) => e.jmap_id === proposalId)!;
    expect([row.is_read, row.read_pending]).to.deep.equal([false, false]);
    const accountIdOnServer = await jmap.mailAccountId();
    const got = await jmap.callOne<{ list: Array<{ keywords: Record<string, boolean> }> }>('Email/get', {
      accountId: accountIdOnServer,
      ids: [proposalId],
      properties: ['keywords'],
    });
    expect(got.list[0].keywords.$seen).to.equal(undefined);
  });
});
