import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { appendMessage } from '../support/imap.js';
import { testApp, testContext } from '../support/harness.js';
import { createUser } from '../support/factories.js';
import { sessionFor } from '../support/auth.js';
import { cliEnv, cliJson } from '../admin/cli-helpers.js';
import { runCli } from '../support/cli.js';
import { crmUser, emailSet, freshMailUser, jmapAs, linkViaApi, put, storedContacts, storedEmails, syncState, type CrmUser, type MailUser } from '../sync/helpers.js';
import { binaryParser } from '../timesheets/helpers.js';
import { lines, messageWithAttachment, unzip } from './helpers.js';

const day = (n: number) => new Date(Date.UTC(2025, 2, n, 9, 0, 0));

/**
 * Export and erasure of one person's address across two staff mailboxes on the real Cyrus: what the
 * zip holds, that the erasure removes everything everywhere, survives an incremental run, a full
 * resync and a re-linked mailbox's first sync, and still lets mail sent after it in.
 */
interface World {
  JANA: string;
  BOB: string;
  mailA: MailUser;
  mailB: MailUser;
  ownerA: CrmUser;
  ownerB: CrmUser;
  accountA: string;
  accountB: string;
}

describe('privacy: export and erasure of an address across email accounts', function () {
  this.timeout(90_000);
  let app: Express;
  let ctx: AppContext;
  // The world the tests that only read share (built once); a test that erases builds its own.
  let JANA: string;
  let BOB: string;
  let mailA: MailUser;
  let mailB: MailUser;
  let ownerA: CrmUser;
  let ownerB: CrmUser;
  let accountA: string;
  let accountB: string;
  let admin: string;
  let member: string;

  const asAdmin = (t: request.Test) => t.set('Authorization', admin);
  const exportZip = async (email: string) => {
    const res = await asAdmin(request(app).post('/api/admin/privacy/export')).send({ email }).buffer(true).parse(binaryParser);
    expect(res.status, String(res.body)).to.equal(200);
    expect(res.headers['content-type']).to.equal('application/zip');
    return unzip(res.body as Buffer);
  };
  const subjects = async (accountId: string) => (await storedEmails(ctx, accountId)).map((e) => e.subject).sort();
  const addresses = async (accountId: string) => (await storedContacts(ctx, accountId)).map((c) => c.email);

  /**
   * Two staff mailboxes on the real Cyrus holding mail of Jana (and of Bob, who is in one thread with
   * her), each linked by its own CRM user and synced. Addresses are new for every world.
   */
  async function buildWorld(): Promise<World> {
    const run = randomBytes(4).toString('hex');
    const jana = `jana-${run}@clients.example`;
    const bob = `bob-${run}@clients.example`;
    const [a, b] = await Promise.all([freshMailUser('privacy-a'), freshMailUser('privacy-b')]);
    const raw = messageWithAttachment({
      from: `"Jana Novakova" <${jana}>`,
      to: `<${a.user}>`,
      subject: 'Offer',
      body: 'The offer is attached.',
      date: day(1),
      file: 'offer.pdf',
      size: 1200,
    });
    await appendMessage({ user: a.user, pass: a.pass, mailbox: 'INBOX', raw, internalDate: day(1) });
    await put(a, 'Sent', { from: a.user, to: jana, cc: bob, subject: 'Re: Offer', body: 'Thanks, Bob joins.', date: day(2) }, ['\\Seen']);
    await put(a, 'INBOX', { from: bob, to: a.user, subject: 'Unrelated', body: 'Only Bob.', date: day(3) });
    await put(b, 'INBOX', { from: jana, to: b.user, subject: 'Hello B', body: 'Hi from Jana.', date: day(2) });
    const [oA, oB] = await Promise.all([crmUser(), crmUser()]);
    const aId = await linkViaApi(app, ctx, oA, a);
    const bId = await linkViaApi(app, ctx, oB, b);
    await ctx.db.sequelize.query('UPDATE contacts SET notes = $notes WHERE email_account_id = $account AND email = $email', {
      bind: { notes: 'Prefers phone calls', account: aId, email: jana },
    });
    const [janaA] = await ctx.db.sequelize.query<{ id: string }>('SELECT id FROM contacts WHERE email_account_id = $1 AND email = $2', {
      bind: [aId, jana],
      type: QueryTypes.SELECT,
    });
    const followUp = await oA.as(request(app).put(`/api/contacts/${janaA.id}/follow-up`)).send({ dueAt: '2030-01-02T09:00:00Z', note: 'Call about the offer' });
    expect(followUp.status, JSON.stringify(followUp.body)).to.equal(200);
    return { JANA: jana, BOB: bob, mailA: a, mailB: b, ownerA: oA, ownerB: oB, accountA: aId, accountB: bId };
  }

  /** A world of its own in which Jana has been erased over HTTP (for the tests of what follows an erasure). */
  async function erasedWorld(): Promise<World> {
    const world = await buildWorld();
    const res = await asAdmin(request(app).post('/api/admin/privacy/erase')).send({ email: world.JANA });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return world;
  }

  before(async () => {
    app = await testApp();
    ctx = await testContext();
    ({ JANA, BOB, mailA, mailB, ownerA, ownerB, accountA, accountB } = await buildWorld());
    admin = (await sessionFor(await createUser({ role: 'admin' }))).bearer;
    member = (await sessionFor(await createUser())).bearer;
  });

  it('both mailboxes were synced with the address in them', async () => {
    expect(await subjects(accountA)).to.deep.equal(['Offer', 'Re: Offer', 'Unrelated']);
    expect(await subjects(accountB)).to.deep.equal(['Hello B']);
  });

  it('members get 403 and anonymous callers 401 on both endpoints; a bad address is a 400', async () => {
    for (const op of ['export', 'erase']) {
      const denied = await request(app).post(`/api/admin/privacy/${op}`).set('Authorization', member).send({ email: JANA });
      expect(denied.status, op).to.equal(403);
      expect(denied.body.error.code).to.equal('forbidden');
      expect((await request(app).post(`/api/admin/privacy/${op}`).send({ email: JANA })).status, op).to.equal(401);
      const bad = await asAdmin(request(app).post(`/api/admin/privacy/${op}`)).send({ email: 'not an address' });
      expect(bad.status, op).to.equal(400);
    }
    expect(await subjects(accountB)).to.deep.equal(['Hello B']);
  });

  it('exports every contact (with notes), email and holder of the address across both accounts, and nothing else', async () => {
    const files = await exportZip(JANA.toUpperCase());
    expect([...files.keys()]).to.deep.equal([
      'README.txt',
      'accounts.jsonl',
      'contacts.jsonl',
      'people.jsonl',
      'companies.jsonl',
      'emails.jsonl',
      'drafts.jsonl',
      'scheduled-emails.jsonl',
      'conversation-comments.jsonl',
      'contact-suppressions.jsonl',
      'tasks.jsonl',
      'audit-records.jsonl',
      'summary.json',
    ]);
    expect(files.get('README.txt')).to.include(JANA);

    const accounts = lines(files.get('accounts.jsonl'));
    expect(accounts.map((a) => [a.email, a.owner]).sort()).to.deep.equal(
      [
        [mailA.user, ownerA.fixture.username],
        [mailB.user, ownerB.fixture.username],
      ].sort(),
    );
    expect(accounts.find((a) => a.email === mailA.user).members).to.deep.equal([{ username: ownerA.fixture.username, role: 'owner', canRead: true, canSend: true }]);

    const contacts = lines(files.get('contacts.jsonl'));
    expect(contacts.map((c) => [c.emailAccount, c.email, c.name, c.notes]).sort()).to.deep.equal(
      [
        [mailA.user, JANA, 'Jana Novakova', 'Prefers phone calls'],
        [mailB.user, JANA, null, null],
      ].sort(),
    );
    // The staff's follow-up of her (its note is about her) goes with her contact.
    const followUpsOf = (mailbox: string) =>
      (contacts.find((c) => c.emailAccount === mailbox).followUps as Array<{ username: string; note: string; dueAt: string }>).map((f) => [
        f.username,
        f.note,
        new Date(f.dueAt).toISOString(),
      ]);
    expect(followUpsOf(mailA.user)).to.deep.equal([[ownerA.fixture.username, 'Call about the offer', '2030-01-02T09:00:00.000Z']]);
    expect(followUpsOf(mailB.user)).to.deep.equal([]);

    const emails = lines(files.get('emails.jsonl'));
    expect(emails.map((e) => e.subject).sort()).to.deep.equal(['Hello B', 'Offer', 'Re: Offer']);
    const offer = emails.find((e) => e.subject === 'Offer');
    expect(offer.from).to.include(JANA);
    expect(offer.text).to.include('The offer is attached.');
    expect(offer.attachments).to.deep.equal([{ name: 'offer.pdf', type: 'application/pdf', size: 1200, inline: false }]);
    expect(emails.find((e) => e.subject === 'Re: Offer').participants).to.have.members([JANA, BOB]);

    // clients.example is a company domain: its company comes along (with the other contacts filed there counted).
    expect(lines(files.get('companies.jsonl')).map((c) => c.domain)).to.deep.equal(['clients.example']);
    expect(JSON.parse(files.get('summary.json')!)).to.include({ address: JANA, accounts: 2, contacts: 2, people: 1, emails: 3, contactSuppressions: 0, tasks: 0, auditRecords: 0 });
    const [record] = await ctx.db.sequelize.query<{ details: Record<string, unknown> }>(
      "SELECT details FROM audit_logs WHERE action = 'privacy.export_ended' ORDER BY id DESC LIMIT 1",
      { type: QueryTypes.SELECT },
    );
    expect(record.details).to.include({ outcome: 'completed', emails: 3, contacts: 2 });
    expect(JSON.stringify(record.details)).not.to.include(JANA);
  });

  it('exports the same zip through crm-admin, to a file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'privacy-export-'));
    const out = path.join(dir, 'jana.zip');
    const summary = await cliJson(['privacy', 'export', '--email', JANA, '--out', out]);
    expect(summary).to.include({ accounts: 2, contacts: 2, emails: 3 });
    expect(fs.statSync(out).mode & 0o777).to.equal(0o600);
    return unzip(fs.readFileSync(out)).then((files) => expect(lines(files.get('emails.jsonl'))).to.have.length(3));
  });

  it('erases the address in every account, keeps everyone else, and audits it by hash only', async () => {
    const { JANA, BOB, accountA, accountB } = await buildWorld();
    const res = await asAdmin(request(app).post('/api/admin/privacy/erase')).send({ email: JANA });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const erasure = res.body.data.erasure;
    expect(erasure).to.include({ emails: 3, contacts: 2, contactSuppressions: 0, people: 1 });
    expect(erasure.accounts.map((a: { emailAccountId: string; emails: number }) => [a.emailAccountId, a.emails]).sort()).to.deep.equal(
      [
        [accountA, 2],
        [accountB, 1],
      ].sort(),
    );

    expect(await subjects(accountA)).to.deep.equal(['Unrelated']);
    expect(await subjects(accountB)).to.deep.equal([]);
    expect(await addresses(accountA)).to.deep.equal([BOB]);
    expect(await addresses(accountB)).to.deep.equal([]);
    // The follow-up of her contact went with it.
    const [followUpsLeft] = await ctx.db.sequelize.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM follow_ups f JOIN contacts c ON c.id = f.contact_id WHERE c.email_account_id IN ($1, $2)',
      { bind: [accountA, accountB], type: QueryTypes.SELECT },
    );
    expect(followUpsLeft.n).to.equal(0);
    // Bob lost "Re: Offer": his newest email is now the unrelated one.
    const bob = (await storedContacts(ctx, accountA))[0];
    expect(bob.last_email_at!.toISOString()).to.equal(day(3).toISOString());

    const [record] = await ctx.db.sequelize.query<{ details: Record<string, unknown>; success: boolean }>(
      "SELECT details, success FROM audit_logs WHERE action = 'privacy.erased' ORDER BY id DESC LIMIT 1",
      { type: QueryTypes.SELECT },
    );
    expect(record.success).to.equal(true);
    expect(record.details).to.include({ addressHash: erasure.addressHash, emails: 3, contacts: 2, accounts: 2 });
    expect(JSON.stringify(record.details)).not.to.include('jana');
    const left = lines((await exportZip(JANA)).get('emails.jsonl'));
    expect(left).to.deep.equal([]);
  });

  it('an incremental run and a full resync do not bring the erased mail back', async () => {
    const { BOB, mailA, accountA, accountB } = await erasedWorld();
    // The server changes the erased mail (read state): the incremental run fetches it again.
    const jmap = jmapAs(mailA);
    const accountId = await jmap.mailAccountId();
    const q = await jmap.callOne<{ ids: string[] }>('Email/query', { accountId, filter: null });
    await emailSet(jmap, { update: Object.fromEntries(q.ids.map((id) => [id, { 'keywords/$flagged': true }])) });
    const incremental = await ctx.services.mailSync.syncAccount(accountA);
    expect(incremental.outcome).to.equal('ok');
    expect(incremental.fetched).to.be.at.least(3);
    expect(await subjects(accountA)).to.deep.equal(['Unrelated']);

    await ctx.db.sequelize.query('UPDATE mail_sync_states SET email_state = NULL WHERE email_account_id IN ($1, $2)', { bind: [accountA, accountB] });
    for (const id of [accountA, accountB]) {
      const full = await ctx.services.mailSync.syncAccount(id);
      expect(full.outcome).to.equal('ok');
      expect(full.mode).to.equal('full');
    }
    expect(await subjects(accountA)).to.deep.equal(['Unrelated']);
    expect(await subjects(accountB)).to.deep.equal([]);
    expect(await addresses(accountA)).to.deep.equal([BOB]);
  });

  it('the first sync of a re-linked mailbox stores nothing of the erased address', async () => {
    const world = await erasedWorld();
    const { ownerB, mailB } = world;
    let { accountB } = world;
    const removed = await ownerB.as(request(app).delete(`/api/email-accounts/${accountB}`));
    expect(removed.status).to.equal(200);
    accountB = await linkViaApi(app, ctx, ownerB, mailB);
    expect((await syncState(ctx, accountB)).status).to.equal('ok');
    expect(await subjects(accountB)).to.deep.equal([]);
    expect(await addresses(accountB)).to.deep.equal([]);
  });

  it('mail the person sends after the erasure is a new relationship: it is stored', async () => {
    const { JANA, mailB, accountB } = await erasedWorld();
    const later = new Date(Date.now() + 5_000);
    await put(mailB, 'INBOX', { from: { name: 'Jana Nováková', email: JANA }, to: mailB.user, subject: 'New request', body: 'A new question.', date: later });
    const result = await ctx.services.mailSync.syncAccount(accountB);
    expect(result.outcome).to.equal('ok');
    expect(await subjects(accountB)).to.deep.equal(['New request']);
    expect(await addresses(accountB)).to.deep.equal([JANA]);
  });

  it('crm-admin privacy erase --yes --json answers the counts; a second erasure finds nothing more', async () => {
    const { BOB } = await erasedWorld();
    const again = await cliJson(['privacy', 'erase', '--email', BOB, '--yes']);
    expect(again).to.include({ emails: 1, contacts: 1 });
    const nothing = await cliJson(['privacy', 'erase', '--email', BOB, '--yes']);
    expect(nothing).to.include({ emails: 0, contacts: 0 });
    expect(nothing.accounts).to.deep.equal([]);
    const refused = await runCli(['privacy', 'erase', '--email', BOB], cliEnv());
    expect(refused.status).to.equal(2);
  });
});
