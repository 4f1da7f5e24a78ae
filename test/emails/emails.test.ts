import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import type { Contact, Email, EmailAccount } from '../../src/models/index.js';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createUser, type UserFixture } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { createContact, createEmail, createEmailAccount } from '../support/email-factories.js';
import { Sql } from '../../src/db/sql.js';
import { emailListQuery } from '../../src/emails/email-query.js';
import { EMAIL_SEARCH_DOCUMENT, SearchWordStatistics } from '../../src/emails/search-terms.js';

const SUMMARY_FIELDS = [
  'contactId',
  'date',
  'direction',
  'emailAccountId',
  'from',
  'fromText',
  'hasAttachments',
  'id',
  'isRead',
  'preview',
  'readPending',
  'subject',
  'threadId',
  'to',
  'toText',
];
const DETAIL_FIELDS = [
  ...SUMMARY_FIELDS.filter((f) => f !== 'preview'),
  ...['attachments', 'blockedImages', 'body', 'cc', 'contactIds', 'createdAt', 'html', 'htmlOmitted', 'inReplyTo', 'messageId', 'replyTo', 'updatedAt'],
];
const day = (d: number, h = 12) => new Date(Date.UTC(2026, 2, d, h));

describe('emails API (lists, reads, threads)', function () {
  let app: Express;
  let owner: UserFixture;
  let session: TestSession;
  let account: EmailAccount;
  let otherAccount: EmailAccount;
  let jana: Contact;
  let peter: Contact;
  let eva: Contact;
  const mail: Record<string, Email> = {};

  before(async () => {
    app = await testApp();
    owner = await createUser();
    session = await sessionFor(owner);
    account = await createEmailAccount(owner);
    otherAccount = await createEmailAccount(owner);
    jana = await createContact(account, { email: 'jana@firma.sk', name: 'Jana' });
    peter = await createContact(account, { email: 'peter@firma.sk', name: 'Peter' });
    eva = await createContact(otherAccount, { email: 'eva@iny.sk', name: 'Eva' });
    mail.invoice = await createEmail(account, jana, {
      subject: 'Faktúra za marec',
      body: `Dobrý deň,\n\n  v prílohe   posielam faktúru.\n${'Ďalší text. '.repeat(60)}`,
      date: day(1),
      threadId: 'T-invoice',
      isRead: true,
    });
    mail.reply = await createEmail(account, jana, { subject: 'Re: Faktúra za marec', body: 'Ďakujem, zaplatené.', date: day(3), threadId: 'T-invoice', participants: [peter] });
    mail.meeting = await createEmail(account, peter, { subject: 'Stretnutie', body: 'Kedy sa stretneme? info@firma.sk', date: day(2), threadId: 'T-meet' });
    mail.other = await createEmail(otherAccount, eva, { subject: 'Ponuka', body: 'Cenová ponuka v prílohe.', date: day(4), threadId: 'T-invoice' });
    mail.noThread = await createEmail(account, peter, { subject: 'Bez vlákna', date: day(5), threadId: null, isRead: true });
  });

  const get = (path: string) => request(app).get(path).set('Authorization', session.bearer);
  const ids = (res: request.Response) => (res.body.data.items as Array<{ id: string }>).map((e) => e.id);

  describe('GET /api/emails', () => {
    it('lists newest first with a short preview and no body', async () => {
      const res = await get('/api/emails');
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ success: true, message: 'Zoznam emailov' });
      expect(ids(res)).to.deep.equal([mail.noThread.id, mail.other.id, mail.reply.id, mail.meeting.id, mail.invoice.id]);
      expect(res.body.data.pagination).to.deep.equal({ page: 1, limit: 50, total: 5, totalExact: true, hasNext: false });
      const invoice = res.body.data.items.find((e: { id: string }) => e.id === mail.invoice.id);
      expect(Object.keys(invoice).sort()).to.deep.equal(SUMMARY_FIELDS);
      expect(invoice).to.include({ emailAccountId: account.id, contactId: jana.id, threadId: 'T-invoice', subject: 'Faktúra za marec', isRead: true, readPending: false });
      expect(invoice.preview).to.match(/^Dobrý deň, v prílohe posielam faktúru\. Ďalší text\./);
      expect(invoice.preview.length).to.be.at.most(201);
      expect(invoice.preview.endsWith('…')).to.equal(true);
    });

    it('filters by contact through every email it took part in (email_contacts), not only as main contact', async () => {
      const res = await get(`/api/emails?contactId=${peter.id}`);
      expect(ids(res)).to.deep.equal([mail.noThread.id, mail.reply.id, mail.meeting.id]);
      expect(res.body.data.pagination.total).to.equal(3);
    });

    it('filters by account, by read state and by date range (to = the whole day)', async () => {
      expect(ids(await get(`/api/emails?emailAccountId=${otherAccount.id}`))).to.deep.equal([mail.other.id]);
      expect(ids(await get('/api/emails?unread=true'))).to.deep.equal([mail.other.id, mail.reply.id, mail.meeting.id]);
      expect(ids(await get('/api/emails?unread=false'))).to.deep.equal([mail.noThread.id, mail.invoice.id]);
      expect(ids(await get(`/api/emails?contactId=${jana.id}&unread=true`))).to.deep.equal([mail.reply.id]);
      expect(ids(await get('/api/emails?from=2026-03-02&to=2026-03-03'))).to.deep.equal([mail.reply.id, mail.meeting.id]);
      expect(ids(await get('/api/emails?from=2026-03-02T12:00:00Z&to=2026-03-02T12:00:00Z'))).to.deep.equal([mail.meeting.id]);
      const combined = await get(`/api/emails?contactId=${jana.id}&from=2026-03-02&emailAccountId=${account.id}`);
      expect(ids(combined)).to.deep.equal([mail.reply.id]);
      expect(combined.body.data.pagination.total).to.equal(1);
    });

    it('searches subject and body by whole words and word prefixes, ignoring case', async () => {
      expect(ids(await get('/api/emails?search=faktúra'))).to.deep.equal([mail.reply.id, mail.invoice.id]);
      expect(ids(await get('/api/emails?search=FAKT'))).to.deep.equal([mail.reply.id, mail.invoice.id]);
      expect(ids(await get('/api/emails?search=zaplatené'))).to.deep.equal([mail.reply.id]);
      expect(ids(await get('/api/emails?search=cenová%20ponuka'))).to.deep.equal([mail.other.id]);
      expect(ids(await get('/api/emails?search=ponuka%20stretneme'))).to.deep.equal([]);
      expect(ids(await get('/api/emails?search=info@firma.sk'))).to.deep.equal([mail.meeting.id]);
      // tsquery syntax in the input is plain text, never an operator or an error.
      const odd = await get(`/api/emails?search=${encodeURIComponent("faktúra') | !(x:* & 'y\\")}`);
      expect(odd.status).to.equal(200);
      const scoped = await get(`/api/emails?search=fakt&contactId=${peter.id}`);
      expect(ids(scoped)).to.deep.equal([mail.reply.id]);
      expect(scoped.body.data.pagination.total).to.equal(1);
    });

    it('searches the way Slovak staff type: without diacritics, by sender name and address, words in any order', async () => {
      expect(ids(await get('/api/emails?search=faktura'))).to.deep.equal([mail.reply.id, mail.invoice.id]);
      // Another case form finds the same word (docs/contract.md §4.4f, 4.): faktúru finds faktúra and faktúry alike.
      expect(ids(await get('/api/emails?search=FAKTURU'))).to.deep.equal([mail.reply.id, mail.invoice.id]);
      expect(ids(await get('/api/emails?search=zaplatene'))).to.deep.equal([mail.reply.id]);
      expect(ids(await get('/api/emails?search=cenova%20ponuka'))).to.deep.equal([mail.other.id]);

      const colleague = await createUser();
      const theirs = await sessionFor(colleague);
      const box = await createEmailAccount(colleague);
      const stastna = await createContact(box, { email: 'j.stastna@klient.sk', name: 'Jana Šťastná' });
      const kovac = await createContact(box, { email: 'jan.kovac@dodavatel.sk', name: 'Ján Kováč' });
      const fromStastna = await createEmail(box, stastna, { from: 'Jana Šťastná <j.stastna@klient.sk>', subject: 'Objednávka', body: 'Posielam objednávku.' });
      const fromKovac = await createEmail(box, kovac, { from: 'Ján Kováč <jan.kovac@dodavatel.sk>', subject: 'Dodávka', body: 'Tovar je na ceste.' });
      const search = async (text: string) => {
        const res = await request(app)
          .get(`/api/emails?search=${encodeURIComponent(text)}`)
          .set('Authorization', theirs.bearer);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        return ids(res);
      };
      expect(await search('stastna')).to.deep.equal([fromStastna.id]);
      expect(await search('ŠŤASTNÁ')).to.deep.equal([fromStastna.id]);
      expect(await search('kovac jan')).to.deep.equal([fromKovac.id]);
      expect(await search('jan.kovac@dodavatel.sk')).to.deep.equal([fromKovac.id]);
      expect(await search('kovacova')).to.deep.equal([]);
      // The owner's mailbox is not theirs: the same words find nothing of it.
      expect(await search('faktura')).to.deep.equal([]);
    });

    it('searches every word, however the words are written: parts without a word count for nothing, long texts keep all words', async () => {
      const search = async (text: string) => {
        const res = await get(`/api/emails?search=${encodeURIComponent(text)}`);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        expect(res.body.data.pagination.total).to.equal(res.body.data.items.length);
        return ids(res);
      };
      expect(await search('faktúra - zaplatené')).to.deep.equal([mail.reply.id]);
      expect(await search('  FAKT   ,  marec ')).to.deep.equal([mail.reply.id, mail.invoice.id]);
      // Twelve words, all in the invoice or its reply; then the same with one that is nowhere (last, past the eighth).
      const many = 'faktúra za marec dobrý deň v prílohe posielam faktúru ďalší text ďalší';
      expect(await search(many)).to.deep.equal([mail.invoice.id]);
      expect(await search(`${many} nikde`)).to.deep.equal([]);
      expect(await search(`nikde ${many}`)).to.deep.equal([]);
    });

    it('finds the same emails when a common word is checked on the found rows instead of in the index', async () => {
      const sql = new Sql((await testContext()).db.sequelize);
      await sql.execute('ANALYZE email_search');
      // The shares read are what the table holds: the most common word's share is the fraction of
      // emails that contain it (ANALYZE reads every row of a table this small).
      const known = await new SearchWordStatistics(sql).shares();
      expect(known.size).to.be.above(0);
      const [top, share] = [...known].sort((a, b) => b[1] - a[1])[0];
      const actual = await sql.one<{ share: number }>(
        `SELECT (count(*) FILTER (WHERE ${EMAIL_SEARCH_DOCUMENT} @@ to_tsquery('simple', quote_literal($word))))::float8 / count(*) AS share FROM email_search s`,
        { word: top },
      );
      expect(share, top).to.be.closeTo(actual!.share, 0.01);
      const common = new Map([
        ['faktúra', 0.9],
        ['dobrý', 0.9],
      ]);
      for (const text of ['faktúra zaplatené', 'fakt', 'dobrý faktúru', 'faktúra nikde']) {
        const run = async (shares: Map<string, number>) => {
          const q = emailListQuery(owner.user.id, { search: text }, { page: 1, limit: 50 }, shares);
          return { rows: (await sql.select<{ id: string }>(q.pageSql, q.bind)).map((r) => r.id), count: await sql.one(q.countSql, q.bind) };
        };
        const checked = await run(common);
        expect(checked, text).to.deep.equal(await run(new Map()));
        if (text === 'faktúra zaplatené') expect(checked.rows).to.deep.equal([mail.reply.id]);
      }
    });

    it('sorts oldest first on request, for the mailbox, a contact, an account and a search, paging alike', async () => {
      const newest = [mail.noThread.id, mail.other.id, mail.reply.id, mail.meeting.id, mail.invoice.id];
      expect(ids(await get('/api/emails?sort=newest'))).to.deep.equal(newest);
      expect(ids(await get('/api/emails?sort=oldest'))).to.deep.equal([...newest].reverse());
      const pages = [1, 2, 3].map((page) => get(`/api/emails?sort=oldest&limit=2&page=${page}`));
      expect((await Promise.all(pages)).flatMap(ids)).to.deep.equal([...newest].reverse());
      expect(ids(await get(`/api/emails?sort=oldest&contactId=${peter.id}`))).to.deep.equal([mail.meeting.id, mail.reply.id, mail.noThread.id]);
      expect(ids(await get(`/api/emails?sort=oldest&contactId=${peter.id}&unread=true`))).to.deep.equal([mail.meeting.id, mail.reply.id]);
      expect(ids(await get(`/api/emails?sort=oldest&emailAccountId=${account.id}&limit=2`))).to.deep.equal([mail.invoice.id, mail.meeting.id]);
      expect(ids(await get('/api/emails?sort=oldest&search=faktúra'))).to.deep.equal([mail.invoice.id, mail.reply.id]);
      const wrong = await get('/api/emails?sort=date');
      expect(wrong.status).to.equal(400);
      expect(wrong.body.error.details).to.deep.equal([{ field: 'sort', message: 'sort musí byť newest alebo oldest' }]);
    });

    it("oldest first reads the date indexes backwards: the page needs no sort of an account's or a contact's emails", async () => {
      const ctx = await testContext();
      const sql = new Sql(ctx.db.sequelize);
      // A table this small is cheaper to sort: forbid sorts and sequential scans to see whether an index serves the order.
      const plan = (filter: Parameters<typeof emailListQuery>[1]) =>
        ctx.db.sequelize.transaction(async (tx) => {
          await ctx.db.sequelize.query('SET LOCAL enable_sort = off; SET LOCAL enable_seqscan = off', { transaction: tx });
          const { pageSql, bind } = emailListQuery(owner.user.id, filter, { page: 1, limit: 2 });
          return (await sql.select<{ 'QUERY PLAN': string }>(`EXPLAIN ${pageSql}`, bind, tx)).map((r) => r['QUERY PLAN']).join('\n');
        });
      const byAccount = await plan({ emailAccountId: account.id, sort: 'oldest' });
      expect(byAccount, byAccount).to.match(/Index (Only )?Scan Backward using emails_account_date_idx/);
      const byContact = await plan({ contactId: jana.id, sort: 'oldest' });
      expect(byContact, byContact).to.match(/Index (Only )?Scan Backward using email_contacts_contact_date_idx/);
    });

    it('lists addresses as {name, email} and says whether there are files, also for rows stored before migration 0020', async () => {
      const ctx = await testContext();
      await ctx.db.sequelize.query(`UPDATE emails SET has_attachments = true, addresses = $2::jsonb WHERE id = $1`, {
        bind: [
          mail.meeting.id,
          JSON.stringify({
            from: [{ name: 'Peter Novák', email: 'peter@firma.sk' }],
            to: [{ name: null, email: account.email }],
            cc: [{ name: 'Eva', email: 'eva@iny.sk' }],
            replyTo: [],
          }),
        ],
      });
      await ctx.db.sequelize.query(`UPDATE emails SET "from" = 'Kováč, Ján <jan@firma.sk>, info@firma.sk', addresses = NULL WHERE id = $1`, { bind: [mail.invoice.id] });
      const items = (await get('/api/emails')).body.data.items as Array<Record<string, unknown>>;
      const meeting = items.find((e) => e.id === mail.meeting.id)!;
      expect(meeting).to.deep.include({ hasAttachments: true, from: [{ name: 'Peter Novák', email: 'peter@firma.sk' }], to: [{ name: null, email: account.email }] });
      const invoice = items.find((e) => e.id === mail.invoice.id)!;
      expect(invoice).to.deep.include({
        hasAttachments: false,
        from: [
          { name: 'Kováč, Ján', email: 'jan@firma.sk' },
          { name: null, email: 'info@firma.sk' },
        ],
        fromText: 'Kováč, Ján <jan@firma.sk>, info@firma.sk',
      });
      const detail = (await get(`/api/emails/${mail.meeting.id}`)).body.data.email;
      expect(detail).to.deep.include({ cc: [{ name: 'Eva', email: 'eva@iny.sk' }], replyTo: [], html: null, blockedImages: 0 });
    });

    it('pages; a page beyond the end is empty with the right total', async () => {
      const first = await get('/api/emails?limit=2');
      const second = await get('/api/emails?limit=2&page=2');
      const third = await get('/api/emails?limit=2&page=3');
      expect([...ids(first), ...ids(second), ...ids(third)]).to.have.length(5);
      expect(new Set([...ids(first), ...ids(second), ...ids(third)]).size).to.equal(5);
      const beyond = await get('/api/emails?limit=2&page=40');
      expect(beyond.body.data).to.deep.equal({ items: [], pagination: { page: 40, limit: 2, total: 5, totalExact: true, hasNext: false } });
    });

    for (const [query, what] of [
      ['limit=101', 'limit 101'],
      ['limit=0', 'limit 0'],
      ['limit=1.5', 'a fractional limit'],
      ['page=-1', 'a negative page'],
      ['unread=yes', 'a non-boolean unread'],
      ['contactId=42', 'a non-UUID contactId'],
      ['from=yesterday', 'a free-text date'],
      ['from=2026-03-05&to=2026-03-01', 'from after to'],
      ['search=%20%20', 'a blank search'],
      ['search=%21%21', 'a search without letters or digits'],
    ]) {
      it(`rejects ${what} with 400`, async () => {
        const res = await get(`/api/emails?${query}`);
        expect(res.status).to.equal(400);
        expect(res.body.success).to.equal(false);
        expect(res.body.error.statusCode).to.equal(400);
      });
    }

    it('answers 404 for a contact or account filter that does not exist', async () => {
      expect((await get('/api/emails?contactId=00000000-0000-4000-8000-000000000000')).status).to.equal(404);
      expect((await get('/api/emails?emailAccountId=00000000-0000-4000-8000-000000000000')).status).to.equal(404);
    });
  });

  describe('GET /api/emails/:id', () => {
    it('returns the full email with every participating contact', async () => {
      const res = await get(`/api/emails/${mail.reply.id}`);
      expect(res.status).to.equal(200);
      expect(Object.keys(res.body.data)).to.deep.equal(['email']);
      expect(Object.keys(res.body.data.email).sort()).to.deep.equal(DETAIL_FIELDS.sort());
      expect(res.body.data.email).to.include({ body: 'Ďakujem, zaplatené.', subject: 'Re: Faktúra za marec', messageId: mail.reply.messageId, contactId: jana.id });
      expect(res.body.data.email.contactIds).to.deep.equal([jana.id, peter.id]);
      expect(res.body.data.email.attachments).to.deep.equal([]);
    });

    it('answers 404 for an unknown id and 400 for a malformed one', async () => {
      expect((await get('/api/emails/00000000-0000-4000-8000-000000000000')).status).to.equal(404);
      expect((await get('/api/emails/abc')).status).to.equal(400);
    });
  });

  describe('GET /api/emails/:id/thread', () => {
    it('returns the thread within the email’s account, oldest first, with bodies', async () => {
      const res = await get(`/api/emails/${mail.reply.id}/thread`);
      expect(res.status).to.equal(200);
      // mail.other has the same thread id but lives in another account: not part of this conversation.
      expect(ids(res)).to.deep.equal([mail.invoice.id, mail.reply.id]);
      expect(res.body.data.items[1].body).to.equal('Ďakujem, zaplatené.');
      expect(res.body.data.pagination).to.deep.equal({ page: 1, limit: 50, total: 2, totalExact: true, hasNext: false });
      expect(ids(await get(`/api/emails/${mail.reply.id}/thread?limit=1&page=2`))).to.deep.equal([mail.reply.id]);
    });

    it('an email without a thread id is a thread of one', async () => {
      const res = await get(`/api/emails/${mail.noThread.id}/thread`);
      expect(ids(res)).to.deep.equal([mail.noThread.id]);
      expect(res.body.data.pagination.total).to.equal(1);
    });

    it('validates paging and ids', async () => {
      expect((await get(`/api/emails/${mail.reply.id}/thread?limit=500`)).status).to.equal(400);
      expect((await get('/api/emails/nope/thread')).status).to.equal(400);
      expect((await get('/api/emails/00000000-0000-4000-8000-000000000000/thread')).status).to.equal(404);
    });
  });

  describe('changes written by the sync (plain SQL on emails)', () => {
    it('reach the contact views: read state, dates, and upserts', async () => {
      const contact = await createContact(account);
      const older = await createEmail(account, contact, { date: day(10), isRead: false });
      const newer = await createEmail(account, contact, { date: day(11), isRead: false });
      const sequelize = (await testContext()).db.sequelize;
      const view = async (query = '') => ids(await get(`/api/emails?contactId=${contact.id}${query}`));
      expect(await view()).to.deep.equal([newer.id, older.id]);

      await sequelize.query('UPDATE emails SET date = $date WHERE id = $id', { bind: { id: older.id, date: day(12) } });
      expect(await view()).to.deep.equal([older.id, newer.id]);

      await sequelize.query('UPDATE emails SET is_read = true WHERE id = $id', { bind: { id: newer.id } });
      expect(await view('&unread=true')).to.deep.equal([older.id]);
      expect((await get(`/api/contacts/${contact.id}`)).body.data.contact.unreadCount).to.equal(1);

      // An upsert the way an idempotent sync stores a batch: the conflicting row is updated.
      await sequelize.query(
        `INSERT INTO emails (user_id, email_account_id, contact_id, jmap_id, is_read, date)
         VALUES ($userId, $accountId, $contactId, $jmapId, true, $date)
         ON CONFLICT (email_account_id, jmap_id) DO UPDATE SET is_read = EXCLUDED.is_read`,
        { bind: { userId: owner.user.id, accountId: account.id, contactId: contact.id, jmapId: older.jmapId, date: day(12) } },
      );
      expect(await view('&unread=true')).to.deep.equal([]);
      expect((await get(`/api/contacts/${contact.id}`)).body.data.contact.unreadCount).to.equal(0);
    });
  });

  describe('PATCH /api/emails/:id and unread counts', () => {
    it('rejects wrong types and unknown fields with 400', async () => {
      const patch = (body: unknown) =>
        request(app)
          .patch(`/api/emails/${mail.meeting.id}`)
          .set('Authorization', session.bearer)
          .send(body as object);
      expect((await patch({ isRead: 'true' })).status).to.equal(400);
      expect((await patch({})).status).to.equal(400);
      expect((await patch({ isRead: true, subject: 'x' })).status).to.equal(400);
    });

    it('a changed read state shows in the list filter and the contact’s unreadCount at once', async () => {
      const contact = await createContact(account);
      const unread = await createEmail(account, contact, { isRead: false });
      const before = await get(`/api/contacts/${contact.id}`);
      expect(before.body.data.contact.unreadCount).to.equal(1);
      // The test context has a JMAP URL but this account's password is a dummy: the server refuses,
      // the local change stands and stays pending.
      const res = await request(app).patch(`/api/emails/${unread.id}`).set('Authorization', session.bearer).send({ isRead: true });
      expect(res.status).to.equal(200);
      expect(res.body.data.email).to.include({ isRead: true, readPending: true });
      expect(res.body.message).to.equal('Email bol označený ako prečítaný');
      expect((await get(`/api/contacts/${contact.id}`)).body.data.contact.unreadCount).to.equal(0);
      expect(ids(await get(`/api/emails?contactId=${contact.id}&unread=true`))).to.deep.equal([]);
      const back = await request(app).patch(`/api/emails/${unread.id}`).set('Authorization', session.bearer).send({ isRead: false });
      expect(back.body.data.email).to.include({ isRead: false, readPending: true });
      expect((await get(`/api/contacts/${contact.id}`)).body.data.contact.unreadCount).to.equal(1);
    });
  });
});
