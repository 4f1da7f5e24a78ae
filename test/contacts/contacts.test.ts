import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { QueryTypes } from 'sequelize';
import { AuditActions } from '../../src/audit/audit-service.js';
import { AuditLog, Contact, Email, type EmailAccount } from '../../src/models/index.js';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createUser, type UserFixture } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { createContact, createEmail, createEmailAccount } from '../support/email-factories.js';

const CONTACT_FIELDS = [
  'addedAt',
  'company',
  'companyId',
  'createdAt',
  'email',
  'emailAccountId',
  'id',
  'lastEmailAt',
  'name',
  'notes',
  'phone',
  'tags',
  'title',
  'unreadCount',
  'updatedAt',
];

async function suppressed(accountId: string, email: string): Promise<boolean> {
  const ctx = await testContext();
  const rows = await ctx.db.sequelize.query('SELECT 1 FROM contact_suppressions WHERE email_account_id = $accountId AND email = $email', {
    bind: { accountId, email },
    type: QueryTypes.SELECT,
  });
  return rows.length === 1;
}

describe('contacts API', function () {
  let app: Express;
  let owner: UserFixture;
  let session: TestSession;
  let account: EmailAccount;
  let second: EmailAccount;

  before(async () => {
    app = await testApp();
    owner = await createUser();
    session = await sessionFor(owner);
    account = await createEmailAccount(owner);
    second = await createEmailAccount(owner);
  });

  const get = (path: string) => request(app).get(path).set('Authorization', session.bearer);

  describe('GET /api/contacts', () => {
    let fresh: UserFixture;
    let freshSession: TestSession;
    let box: EmailAccount;
    const names: Record<string, Contact> = {};

    before(async () => {
      fresh = await createUser();
      freshSession = await sessionFor(fresh);
      box = await createEmailAccount(fresh);
      const other = await createEmailAccount(fresh);
      const day = (n: number) => new Date(Date.UTC(2026, 0, n));
      names.zuzana = await createContact(box, { email: 'zuzana@firma.sk', name: 'Zuzana Nová', lastEmailAt: day(3) });
      names.adam = await createContact(box, { email: 'adam@dodavatel.sk', name: 'adam Kováč', lastEmailAt: day(5) });
      names.never = await createContact(box, { email: 'bez-posty@firma.sk', name: null, lastEmailAt: null });
      names.other = await createContact(other, { email: 'peter@iny.sk', name: 'Peter', lastEmailAt: day(4) });
      // Unread counts come from every email the contact took part in, not only as main correspondent.
      await createEmail(box, names.zuzana, { isRead: false });
      await createEmail(box, names.zuzana, { isRead: false });
      await createEmail(box, names.zuzana, { isRead: true });
      await createEmail(box, names.adam, { isRead: false, participants: [names.zuzana] });
    });

    const list = (query: string) => request(app).get(`/api/contacts${query}`).set('Authorization', freshSession.bearer);

    it('lists the newest correspondence first by default, with unreadCount and lastEmailAt', async () => {
      const res = await list('');
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ success: true, message: 'Zoznam kontaktov' });
      expect(res.body.data.pagination).to.deep.equal({ page: 1, limit: 50, total: 4, totalExact: true, hasNext: false });
      const items = res.body.data.items as Array<Record<string, unknown>>;
      expect(items.map((c) => c.email)).to.deep.equal(['adam@dodavatel.sk', 'peter@iny.sk', 'zuzana@firma.sk', 'bez-posty@firma.sk']);
      expect(Object.keys(items[0]).sort()).to.deep.equal(CONTACT_FIELDS);
      const zuzana = items.find((c) => c.email === 'zuzana@firma.sk')!;
      expect(zuzana).to.include({ unreadCount: 3, name: 'Zuzana Nová', emailAccountId: box.id, id: names.zuzana.id });
      expect(zuzana.lastEmailAt).to.equal(new Date(Date.UTC(2026, 0, 3)).toISOString());
      expect(items.find((c) => c.email === 'adam@dodavatel.sk')).to.include({ unreadCount: 1 });
      expect(items.find((c) => c.email === 'bez-posty@firma.sk')).to.include({ unreadCount: 0, lastEmailAt: null });
    });

    it('sorts by last email under its new name and its old one', async () => {
      const expected = ['adam@dodavatel.sk', 'peter@iny.sk', 'zuzana@firma.sk', 'bez-posty@firma.sk'];
      for (const sort of ['lastEmail', 'latest']) {
        expect(
          (await list(`?sort=${sort}`)).body.data.items.map((c: { email: string }) => c.email),
          sort,
        ).to.deep.equal(expected);
      }
    });

    it('sorts by name (case-insensitive, the address standing in for a missing name)', async () => {
      const res = await list('?sort=name');
      expect(res.status).to.equal(200);
      expect(res.body.data.items.map((c: { email: string }) => c.email)).to.deep.equal(['adam@dodavatel.sk', 'bez-posty@firma.sk', 'peter@iny.sk', 'zuzana@firma.sk']);
    });

    it('filters by email account', async () => {
      const res = await list(`?emailAccountId=${box.id}`);
      expect(res.body.data.pagination.total).to.equal(3);
      expect(res.body.data.items.every((c: { emailAccountId: string }) => c.emailAccountId === box.id)).to.equal(true);
    });

    it('searches in the name and the address, case-insensitively, with % and _ taken literally', async () => {
      expect((await list('?search=NOV')).body.data.items.map((c: { email: string }) => c.email)).to.deep.equal(['zuzana@firma.sk']);
      expect((await list('?search=firma.sk')).body.data.pagination.total).to.equal(2);
      expect((await list('?search=%25')).body.data.pagination.total).to.equal(0);
      expect((await list('?search=bez_posty')).body.data.pagination.total).to.equal(0);
    });

    it('searches with Slovak habits: accents and case aside, several words in any order, over name and address (issue 34)', async () => {
      const slovak = await createUser();
      const slovakSession = await sessionFor(slovak);
      const mailbox = await createEmailAccount(slovak);
      await createContact(mailbox, { email: 'jan.kovac@firma.sk', name: 'Ján Kováč' });
      await createContact(mailbox, { email: 'zuzka@obchod.sk', name: 'Šťastná Zuzana' });
      await createContact(mailbox, { email: 'peter.kovac@firma.sk', name: 'Peter Kováč' });
      await createContact(mailbox, { email: 'janka@firma.sk', name: 'Janka Šťastná' });
      const found = async (search: string) => {
        const res = await request(app).get('/api/contacts').query({ search, sort: 'name' }).set('Authorization', slovakSession.bearer);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        const emails = res.body.data.items.map((c: { email: string }) => c.email);
        expect(res.body.data.pagination.total, search).to.equal(emails.length);
        return emails;
      };
      expect(await found('kovac jan')).to.deep.equal(['jan.kovac@firma.sk']);
      expect(await found('JAN KOVÁČ')).to.deep.equal(['jan.kovac@firma.sk']);
      expect(await found('stastna')).to.deep.equal(['janka@firma.sk', 'zuzka@obchod.sk']);
      expect(await found('zuzana šťastná')).to.deep.equal(['zuzka@obchod.sk']);
      expect(await found('kovac')).to.deep.equal(['jan.kovac@firma.sk', 'peter.kovac@firma.sk']);
      // The address counts as much as the name, and both words must match somewhere.
      expect(await found('firma stastna')).to.deep.equal(['janka@firma.sk']);
      expect(await found('obchod')).to.deep.equal(['zuzka@obchod.sk']);
      expect(await found('kovac zuzana')).to.deep.equal([]);
    });

    it('pages: page size, a page beyond the end (empty, right total)', async () => {
      const first = await list('?limit=3&page=1');
      expect(first.body.data.items).to.have.length(3);
      const second = await list('?limit=3&page=2');
      expect(second.body.data.items).to.have.length(1);
      expect(second.body.data.pagination).to.deep.equal({ page: 2, limit: 3, total: 4, totalExact: true, hasNext: false });
      const beyond = await list('?limit=3&page=9');
      expect(beyond.status).to.equal(200);
      expect(beyond.body.data).to.deep.equal({ items: [], pagination: { page: 9, limit: 3, total: 4, totalExact: true, hasNext: false } });
      const ids = [...first.body.data.items, ...second.body.data.items].map((c: { id: string }) => c.id);
      expect(new Set(ids).size).to.equal(4);
    });

    for (const [query, what] of [
      ['?limit=101', 'limit above 100'],
      ['?limit=0', 'limit 0'],
      ['?page=0', 'page 0'],
      ['?page=abc', 'a non-numeric page'],
      ['?limit=1&limit=2', 'a repeated parameter'],
      ['?sort=oldest', 'an unknown sort'],
      ['?emailAccountId=123', 'a non-UUID emailAccountId'],
      [`?search=${'x'.repeat(201)}`, 'an over-long search'],
    ]) {
      it(`rejects ${what} with 400 ValidationError`, async () => {
        const res = await list(query);
        expect(res.status).to.equal(400);
        expect(res.body).to.deep.include({ success: false });
        expect(res.body.error.statusCode).to.equal(400);
        expect(res.body.error.message).to.be.a('string');
      });
    }

    it('answers 404 for an emailAccountId filter that is not the caller’s', async () => {
      const res = await list(`?emailAccountId=${account.id}`);
      expect(res.status).to.equal(404);
      expect(res.body.error.message).to.equal('Emailový účet neexistuje');
    });

    it('requires authentication', async () => {
      const res = await request(app).get('/api/contacts');
      expect(res.status).to.equal(401);
      expect(res.body.error.message).to.equal('Neautorizovaný prístup');
    });
  });

  describe('GET /api/contacts/:id', () => {
    it('returns the contact with unreadCount and emailCount', async () => {
      const contact = await createContact(account, { name: 'Eva', notes: 'VIP' });
      await createEmail(account, contact, { isRead: true });
      await createEmail(account, contact, { isRead: false });
      const res = await get(`/api/contacts/${contact.id}`);
      expect(res.status).to.equal(200);
      expect(Object.keys(res.body.data)).to.deep.equal(['contact']);
      expect(Object.keys(res.body.data.contact).sort()).to.deep.equal([...CONTACT_FIELDS, 'emailCount'].sort());
      expect(res.body.data.contact).to.include({ id: contact.id, name: 'Eva', notes: 'VIP', unreadCount: 1, emailCount: 2, emailAccountId: account.id });
    });

    it('answers 404 for an unknown id and 400 for a non-UUID id', async () => {
      const missing = await get('/api/contacts/00000000-0000-4000-8000-000000000000');
      expect(missing.status).to.equal(404);
      expect(missing.body.error.message).to.equal('Kontakt neexistuje');
      const bad = await get('/api/contacts/not-a-uuid');
      expect(bad.status).to.equal(400);
    });
  });

  describe('POST /api/contacts', () => {
    const post = (body: unknown) =>
      request(app)
        .post('/api/contacts')
        .set('Authorization', session.bearer)
        .send(body as object);

    it('creates a contact by hand (201), storing the address lower-cased', async () => {
      const res = await post({ emailAccountId: account.id, email: '  Jana.Mala@Example.COM ', name: ' Jana Malá ', notes: 'z veľtrhu' });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body.message).to.equal('Kontakt bol vytvorený');
      expect(res.body.data.contact).to.include({ email: 'jana.mala@example.com', name: 'Jana Malá', notes: 'z veľtrhu', unreadCount: 0, emailCount: 0, lastEmailAt: null });
      const row = await Contact.findByPk(res.body.data.contact.id);
      expect(row).to.include({ userId: owner.user.id, emailAccountId: account.id, email: 'jana.mala@example.com' });
      const audit = await AuditLog.findOne({ where: { action: AuditActions.contactCreated, userId: owner.user.id }, order: [['id', 'DESC']] });
      expect(audit?.details).to.include({ contactId: res.body.data.contact.id });
    });

    it('links the emails the new contact already took part in (emails.participants, as the sync stores them)', async () => {
      const main = await createContact(account);
      const earlier = await createEmail(account, main, { date: new Date(Date.UTC(2026, 3, 2)) });
      const latest = await createEmail(account, main, { date: new Date(Date.UTC(2026, 3, 9)) });
      await createEmail(account, main, { date: new Date(Date.UTC(2026, 3, 20)) });
      const sequelize = (await testContext()).db.sequelize;
      await sequelize.query("UPDATE emails SET participants = ARRAY[$main::text, 'neskor@example.com'] WHERE id = ANY($ids::uuid[])", {
        bind: { main: main.email, ids: [earlier.id, latest.id] },
      });
      const res = await post({ emailAccountId: account.id, email: 'Neskor@Example.com' });
      expect(res.status).to.equal(201);
      expect(res.body.data.contact).to.include({ emailCount: 2, unreadCount: 2, lastEmailAt: latest.date!.toISOString() });
      const emails = await get(`/api/emails?contactId=${res.body.data.contact.id}`);
      expect(emails.body.data.items.map((e: { id: string }) => e.id)).to.deep.equal([latest.id, earlier.id]);
    });

    it('answers 409 "Kontakt už existuje" for a duplicate, also in another case', async () => {
      const first = await post({ emailAccountId: account.id, email: 'dup@example.com' });
      expect(first.status).to.equal(201);
      for (const email of ['dup@example.com', 'DUP@Example.com']) {
        const res = await post({ emailAccountId: account.id, email });
        expect(res.status).to.equal(409);
        expect(res.body.error).to.include({ message: 'Kontakt už existuje', statusCode: 409 });
      }
      expect(await Contact.count({ where: { userId: owner.user.id, email: 'dup@example.com' } })).to.equal(1);
    });

    it('allows the same address in another email account of the user', async () => {
      expect((await post({ emailAccountId: account.id, email: 'both@example.com' })).status).to.equal(201);
      expect((await post({ emailAccountId: second.id, email: 'both@example.com' })).status).to.equal(201);
    });

    it('creates one contact when the same address is posted twice at once', async () => {
      const results = await Promise.all([post({ emailAccountId: account.id, email: 'race@example.com' }), post({ emailAccountId: account.id, email: 'race@example.com' })]);
      expect(results.map((r) => r.status).sort()).to.deep.equal([201, 409]);
    });

    it('answers 404 for a email account of another user', async () => {
      const stranger = await createUser();
      const theirs = await createEmailAccount(stranger);
      const res = await post({ emailAccountId: theirs.id, email: 'x@example.com' });
      expect(res.status).to.equal(404);
      expect(await Contact.count({ where: { emailAccountId: theirs.id } })).to.equal(0);
    });

    for (const [body, what] of [
      [{ email: 'a@example.com' }, 'a missing emailAccountId'],
      [{ emailAccountId: 'nope', email: 'a@example.com' }, 'a non-UUID emailAccountId'],
      [{ emailAccountId: '00000000-0000-4000-8000-000000000000' }, 'a missing email'],
      [{ emailAccountId: '00000000-0000-4000-8000-000000000000', email: 'not an address' }, 'an invalid address'],
      [{ emailAccountId: '00000000-0000-4000-8000-000000000000', email: 42 }, 'a number as address'],
      [{ emailAccountId: '00000000-0000-4000-8000-000000000000', email: 'a@example.com', name: ['x'] }, 'an array as name'],
      [{ emailAccountId: '00000000-0000-4000-8000-000000000000', email: 'a@example.com', userId: 'x' }, 'an unknown field'],
      [[1, 2], 'an array body'],
    ] as const) {
      it(`rejects ${what} with 400`, async () => {
        const res = await post(body);
        expect(res.status).to.equal(400);
        expect(res.body.success).to.equal(false);
      });
    }

    it('rejects malformed JSON with 400 in the envelope', async () => {
      const res = await request(app).post('/api/contacts').set('Authorization', session.bearer).set('Content-Type', 'application/json').send('{"email":');
      expect(res.status).to.equal(400);
      expect(res.body.error.message).to.equal('Neplatný formát JSON');
    });
  });

  describe('PATCH /api/contacts/:id', () => {
    const patch = (id: string, body: unknown) =>
      request(app)
        .patch(`/api/contacts/${id}`)
        .set('Authorization', session.bearer)
        .send(body as object);

    it('changes name and notes; an empty string clears a field', async () => {
      const contact = await createContact(account, { name: 'Staré', notes: 'poznámka' });
      const res = await patch(contact.id, { name: 'Nové meno' });
      expect(res.status).to.equal(200);
      expect(res.body.data.contact).to.include({ name: 'Nové meno', notes: 'poznámka' });
      const cleared = await patch(contact.id, { notes: '' });
      expect(cleared.body.data.contact).to.include({ name: 'Nové meno', notes: null });
      await contact.reload();
      expect(contact.notes).to.equal(null);
    });

    it('rejects an empty change, an address change and wrong types with 400', async () => {
      const contact = await createContact(account);
      expect((await patch(contact.id, {})).status).to.equal(400);
      expect((await patch(contact.id, { email: 'new@example.com' })).status).to.equal(400);
      expect((await patch(contact.id, { name: 5 })).status).to.equal(400);
      expect((await patch(contact.id, { notes: 'x'.repeat(10_001) })).status).to.equal(400);
    });

    it('answers 404 for an unknown contact', async () => {
      expect((await patch('00000000-0000-4000-8000-000000000000', { name: 'x' })).status).to.equal(404);
    });
  });

  describe('DELETE /api/contacts/:id', () => {
    const del = (id: string) => request(app).delete(`/api/contacts/${id}`).set('Authorization', session.bearer);

    it('deletes the contact with its emails, keeps emails it only took part in, and suppresses the address', async () => {
      const doomed = await createContact(account, { email: 'odchadza@example.com' });
      const kept = await createContact(account, { email: 'zostava@example.com', lastEmailAt: new Date(Date.UTC(2026, 2, 1)) });
      const own = await createEmail(account, doomed, { participants: [kept], date: new Date(Date.UTC(2026, 2, 1)) });
      const olderOfKept = await createEmail(account, kept, { date: new Date(Date.UTC(2026, 1, 1)) });
      const participated = await createEmail(account, kept, { participants: [doomed], date: new Date(Date.UTC(2026, 0, 1)) });

      const res = await del(doomed.id);
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ message: 'Kontakt bol vymazaný' });
      expect(res.body.data).to.deep.equal({ id: doomed.id, deletedEmails: 1 });

      expect(await Contact.findByPk(doomed.id)).to.equal(null);
      expect(await Email.findByPk(own.id)).to.equal(null);
      expect(await Email.findByPk(participated.id)).to.not.equal(null);
      expect(await suppressed(account.id, 'odchadza@example.com')).to.equal(true);
      // The kept contact's latest email went with the deleted one: its last_email_at follows what is left.
      await kept.reload();
      expect(kept.lastEmailAt?.toISOString()).to.equal(olderOfKept.date!.toISOString());
      const detail = await get(`/api/contacts/${kept.id}`);
      expect(detail.body.data.contact.emailCount).to.equal(2);
      const audit = await AuditLog.findOne({ where: { action: AuditActions.contactDeleted, userId: owner.user.id }, order: [['id', 'DESC']] });
      expect(audit?.details).to.include({ contactId: doomed.id, deletedEmails: 1 });

      expect((await del(doomed.id)).status).to.equal(404);
    });

    it('creating the address again by hand lifts the suppression', async () => {
      const contact = await createContact(account, { email: 'znovu@example.com' });
      expect((await del(contact.id)).status).to.equal(200);
      expect(await suppressed(account.id, 'znovu@example.com')).to.equal(true);
      const res = await request(app).post('/api/contacts').set('Authorization', session.bearer).send({ emailAccountId: account.id, email: 'Znovu@example.com' });
      expect(res.status).to.equal(201);
      expect(await suppressed(account.id, 'znovu@example.com')).to.equal(false);
    });

    it('answers 400 for a non-UUID id', async () => {
      expect((await del('123')).status).to.equal(400);
    });
  });
});
