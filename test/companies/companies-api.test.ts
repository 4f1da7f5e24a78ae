import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import { AuditActions } from '../../src/audit/audit-service.js';
import { AuditLog, type EmailAccount } from '../../src/models/index.js';
import { createEmailAccount } from '../support/email-factories.js';
import { testApp } from '../support/harness.js';
import { addContact, companiesOf, member, setLastEmailAt, type ContactView, type Member } from './support.js';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const day = (n: number) => new Date(Date.UTC(2026, 2, n, 9, 0, 0));

/**
 * GET/PATCH /api/companies over HTTP: companies come from the contacts' domains (free-mail and the
 * staff's own domains never), each caller sees those of the contacts they may see, with figures
 * over those contacts only.
 */
describe('companies API', function () {
  this.timeout(30_000);
  const run = randomBytes(4).toString('hex');
  const KOVAC = `kovac-${run}.sk`;
  let app: Express;
  let jana: Member;
  let peter: Member;
  let eva: Member;
  let janaBox: EmailAccount;
  let peterBox: EmailAccount;
  const people: Record<string, ContactView> = {};

  before(async () => {
    app = await testApp();
    [jana, peter, eva] = [await member(app), await member(app), await member(app)];
    janaBox = await createEmailAccount(jana.fixture);
    peterBox = await createEmailAccount(peter.fixture);
    people.jan = await addContact(jana, janaBox.id, `jan@${KOVAC}`, 'Ján Kováč');
    people.maria = await addContact(jana, janaBox.id, `Maria@${KOVAC.toUpperCase()}`);
    people.peter = await addContact(peter, peterBox.id, `peter@${KOVAC}`);
    await setLastEmailAt(people.jan.id, day(3));
    await setLastEmailAt(people.maria.id, day(5));
    await setLastEmailAt(people.peter.id, day(9));
  });

  const companyId = () => people.jan.companyId!;

  it('files contacts of one domain under one company, whatever the case of the address', async () => {
    expect(people.jan.companyId).to.be.a('string');
    expect(people.maria.companyId).to.equal(people.jan.companyId);
    expect(people.peter.companyId).to.equal(people.jan.companyId);
    const res = await jana.get(`/api/companies/${companyId()}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ success: true, message: 'Firma' });
    expect(Object.keys(res.body.data.company).sort()).to.deep.equal([
      'address',
      'contactCount',
      'createdAt',
      'domain',
      'id',
      'lastEmailAt',
      'name',
      'notes',
      'phone',
      'registrationNumber',
      'updatedAt',
      'vatId',
      'website',
    ]);
    expect(res.body.data.company).to.include({ id: companyId(), domain: KOVAC, name: KOVAC, notes: null });
  });

  it("makes no company of free-mail domains nor of the staff's own domain", async () => {
    const box = await createEmailAccount(jana.fixture);
    const own = box.email.split('@')[1];
    const free = ['anna@gmail.com', 'bob@outlook.com', 'cyril@azet.sk', 'dana@zoznam.sk', 'emil@centrum.sk', 'fero@seznam.cz', 'gita@gmx.de', 'hana@post.sk', `kolega@${own}`];
    for (const email of free) {
      const contact = await addContact(jana, box.id, email);
      expect(contact.companyId, email).to.equal(null);
      const listed = await jana.get(`/api/contacts/${contact.id}`);
      expect(listed.body.data.contact.companyId, email).to.equal(null);
    }
    const domains = (await companiesOf(jana)).map((c) => c.domain);
    expect(domains).to.deep.equal([KOVAC]);
    for (const email of free) expect(domains).to.not.include(email.split('@')[1]);
  });

  it("counts contacts and the newest email only over the caller's mailboxes", async () => {
    const [forJana] = (await companiesOf(jana)).filter((c) => c.domain === KOVAC);
    expect(forJana).to.include({ id: companyId(), contactCount: 2, lastEmailAt: day(5).toISOString() });
    const [forPeter] = (await companiesOf(peter)).filter((c) => c.domain === KOVAC);
    expect(forPeter).to.include({ id: companyId(), contactCount: 1, lastEmailAt: day(9).toISOString() });
    const single = await peter.get(`/api/companies/${companyId()}`);
    expect(single.body.data.company).to.include({ contactCount: 1, lastEmailAt: day(9).toISOString() });
  });

  it('lists a company through a shared mailbox, and not once the share is removed', async () => {
    expect((await eva.get(`/api/companies/${companyId()}`)).status).to.equal(404);
    expect(await companiesOf(eva)).to.deep.equal([]);

    const shared = await jana.post(`/api/email-accounts/${janaBox.id}/share`, { userId: eva.id, role: 'viewer' });
    expect(shared.status, JSON.stringify(shared.body)).to.equal(201);
    const listed = await companiesOf(eva);
    expect(listed.map((c) => [c.domain, c.contactCount, c.lastEmailAt])).to.deep.equal([[KOVAC, 2, day(5).toISOString()]]);
    expect((await eva.get(`/api/companies/${companyId()}`)).status).to.equal(200);
    const contacts = await eva.get(`/api/contacts?companyId=${companyId()}`);
    expect(contacts.status).to.equal(200);
    expect(contacts.body.data.items.map((c: ContactView) => c.email).sort()).to.deep.equal([`jan@${KOVAC}`, `maria@${KOVAC}`]);
    expect(contacts.body.data.pagination).to.deep.equal({ page: 1, limit: 50, total: 2, totalExact: true, hasNext: false });

    const removed = await jana.del(`/api/email-accounts/${janaBox.id}/share/${eva.id}`);
    expect(removed.status, JSON.stringify(removed.body)).to.equal(200);
    const gone = await eva.get(`/api/companies/${companyId()}`);
    expect(gone.status).to.equal(404);
    expect(gone.body.error).to.include({ message: 'Firma neexistuje', statusCode: 404 });
    expect(await companiesOf(eva)).to.deep.equal([]);
    const noContacts = await eva.get(`/api/contacts?companyId=${companyId()}`);
    expect(noContacts.status).to.equal(404);
    expect(noContacts.body.error.message).to.equal('Firma neexistuje');
  });

  it('lists only the visible contacts of a company under ?companyId=, and 404 for an unknown one', async () => {
    const mine = await jana.get(`/api/contacts?companyId=${companyId()}&sort=name`);
    expect(mine.status).to.equal(200);
    expect(mine.body.data.items.map((c: ContactView) => c.email)).to.deep.equal([`jan@${KOVAC}`, `maria@${KOVAC}`]);
    const his = await peter.get(`/api/contacts?companyId=${companyId()}`);
    expect(his.body.data.items.map((c: ContactView) => c.email)).to.deep.equal([`peter@${KOVAC}`]);
    const unknown = await jana.get(`/api/contacts?companyId=${UNKNOWN}`);
    expect(unknown.status).to.equal(404);
    expect(unknown.body.error.message).to.equal('Firma neexistuje');
    const malformed = await jana.get('/api/contacts?companyId=abc');
    expect(malformed.status).to.equal(400);
    expect(malformed.body.error.details).to.deep.include({ field: 'companyId', message: 'Neplatný identifikátor firmy' });
  });

  it("hides a company at once when its domain becomes one of the staff's own, and shows it again when that mailbox goes", async () => {
    const domain = `later-${run}.test`;
    const contact = await addContact(jana, janaBox.id, `obchod@${domain}`);
    expect(contact.companyId).to.be.a('string');
    expect((await jana.get(`/api/companies/${contact.companyId}`)).status).to.equal(200);

    const colleague = await createEmailAccount(peter.fixture, { email: `kolegyna@${domain}` });
    expect((await jana.get(`/api/companies/${contact.companyId}`)).status).to.equal(404);
    expect((await companiesOf(jana)).map((c) => c.domain)).to.not.include(domain);
    expect((await jana.get(`/api/contacts/${contact.id}`)).body.data.contact.companyId).to.equal(null);
    expect((await jana.get(`/api/contacts?companyId=${contact.companyId}`)).status).to.equal(404);
    expect((await jana.patch(`/api/companies/${contact.companyId}`, { name: 'Kolegovia' })).status).to.equal(404);
    // A contact added while the domain is an own one is filed under it too (shown again below).
    const second = await addContact(jana, janaBox.id, `druhy@${domain}`);
    expect(second.companyId).to.equal(null);

    await colleague.destroy();
    const back = await jana.get(`/api/companies/${contact.companyId}`);
    expect(back.status).to.equal(200);
    expect(back.body.data.company).to.include({ domain, name: domain, contactCount: 2 });
  });

  it('searches name and domain, accents, letter case and word order aside', async () => {
    const domain = `obchod-${run}.sk`;
    const contact = await addContact(jana, janaBox.id, `info@${domain}`);
    expect((await jana.patch(`/api/companies/${contact.companyId}`, { name: 'Šťastná a syn s.r.o.' })).status).to.equal(200);
    for (const search of ['stastna', 'ŠŤASTNÁ', 'syn stastna', `obchod-${run}`, run]) {
      const found = await companiesOf(jana, `&search=${encodeURIComponent(search)}`);
      expect(
        found.map((c) => c.domain),
        search,
      ).to.include(domain);
    }
    expect((await companiesOf(jana, `&search=${encodeURIComponent(`stastna ${KOVAC}`)}`)).length).to.equal(0);
    const kovac = await companiesOf(jana, `&search=${encodeURIComponent(run)}`);
    expect(kovac.map((c) => c.domain)).to.include(KOVAC);
  });

  it('sorts by the newest email (default), by name and by contact count, paged like the other lists', async () => {
    const domain = `alfa-${run}.sk`;
    const a = await addContact(peter, peterBox.id, `a@${domain}`);
    await addContact(peter, peterBox.id, `b@${domain}`);
    await addContact(peter, peterBox.id, `c@${domain}`);
    await setLastEmailAt(a.id, day(1));
    const byDefault = await companiesOf(peter, `&search=${run}`);
    expect(byDefault.map((c) => c.domain)).to.deep.equal([KOVAC, domain]);
    expect((await companiesOf(peter, `&search=${run}&sort=contactCount`)).map((c) => [c.domain, c.contactCount])).to.deep.equal([
      [domain, 3],
      [KOVAC, 1],
    ]);
    expect((await companiesOf(peter, `&search=${run}&sort=name`)).map((c) => c.domain)).to.deep.equal([domain, KOVAC]);
    const page = await peter.get(`/api/companies?search=${run}&limit=1&page=2&sort=name`);
    expect(page.status).to.equal(200);
    expect(page.body).to.include({ success: true, message: 'Zoznam firiem' });
    expect(page.body.data.pagination).to.deep.equal({ page: 2, limit: 1, total: 2, totalExact: true, hasNext: false });
    expect(page.body.data.items.map((c: { domain: string }) => c.domain)).to.deep.equal([KOVAC]);
  });

  it('lets any user who sees a company name it and keep notes, audited, and shows the change to the others', async () => {
    const res = await jana.patch(`/api/companies/${companyId()}`, { name: '  Kováč a spol.  ', notes: 'Odberateľ od 2019' });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ success: true, message: 'Firma bola upravená' });
    expect(res.body.data.company).to.include({ name: 'Kováč a spol.', notes: 'Odberateľ od 2019', domain: KOVAC, contactCount: 2 });
    const audit = await AuditLog.findOne({ where: { action: AuditActions.companyUpdated, userId: jana.id }, order: [['id', 'DESC']] });
    expect(audit?.details).to.deep.include({ companyId: companyId(), domain: KOVAC, fields: ['name', 'notes'] });

    const seen = await peter.get(`/api/companies/${companyId()}`);
    expect(seen.body.data.company).to.include({ name: 'Kováč a spol.', notes: 'Odberateľ od 2019', contactCount: 1 });
    // Peter, who sees it through his own contact, may change it too; an empty name shows the domain again.
    const cleared = await peter.patch(`/api/companies/${companyId()}`, { name: '' });
    expect(cleared.status).to.equal(200);
    expect(cleared.body.data.company).to.include({ name: KOVAC, notes: 'Odberateľ od 2019' });
  });

  it('answers 404 to a PATCH by someone who does not see the company, and changes nothing', async () => {
    const before = (await jana.get(`/api/companies/${companyId()}`)).body.data.company;
    const res = await eva.patch(`/api/companies/${companyId()}`, { name: 'Ukradnutá' });
    expect(res.status).to.equal(404);
    expect(res.body).to.deep.include({ success: false });
    expect(res.body.error).to.include({ message: 'Firma neexistuje', code: 'not_found' });
    expect((await jana.get(`/api/companies/${companyId()}`)).body.data.company).to.deep.equal(before);
    expect(await AuditLog.count({ where: { action: AuditActions.companyUpdated, userId: eva.id } })).to.equal(0);
    expect((await jana.patch(`/api/companies/${UNKNOWN}`, { name: 'x' })).status).to.equal(404);
    expect((await jana.get(`/api/companies/${UNKNOWN}`)).status).to.equal(404);
  });

  it('refuses malformed input with 400 in the envelope and a Slovak message', async () => {
    const id = companyId();
    const cases: Array<[request: () => ReturnType<Member['get']>, field: string | null, message: string]> = [
      [() => jana.patch(`/api/companies/${id}`, {}), null, 'Zadajte aspoň jednu zmenu (name, notes, registrationNumber, vatId, address, phone, website)'],
      [() => jana.patch(`/api/companies/${id}`, { domain: 'iny.sk' }), 'domain', 'Neznáme pole: domain'],
      [() => jana.patch(`/api/companies/${id}`, { name: 5 }), 'name', 'Názov musí byť text'],
      [() => jana.patch(`/api/companies/${id}`, { notes: ['x'] }), 'notes', 'Poznámka musí byť text'],
      [() => jana.patch(`/api/companies/${id}`, { name: 'x'.repeat(201) }), 'name', 'Názov môže mať najviac 200 znakov'],
      [() => jana.patch(`/api/companies/${id}`, { notes: 'x'.repeat(10_001) }), 'notes', 'Poznámka môže mať najviac 10000 znakov'],
      [() => jana.patch('/api/companies/abc', { name: 'x' }), 'id', 'Neplatný identifikátor'],
      [() => jana.get('/api/companies/abc'), 'id', 'Neplatný identifikátor'],
      [() => jana.get('/api/companies?sort=size'), 'sort', 'sort musí byť lastEmail, name alebo contactCount'],
      [() => jana.get('/api/companies?search='), 'search', 'Hľadaný text je prázdny'],
      [() => jana.get(`/api/companies?search=${'x'.repeat(201)}`), 'search', 'Hľadaný text je príliš dlhý'],
      [() => jana.get('/api/companies?domain=x'), 'domain', 'Neznáme pole: domain'],
    ];
    for (const [send, field, message] of cases) {
      const res = await send();
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(res.body.success).to.equal(false);
      expect(res.body.error).to.include({ statusCode: 400, code: 'validation_failed' });
      expect(res.body.error.details, JSON.stringify(res.body)).to.deep.include({ field, message });
    }
    for (const query of ['limit=101', 'limit=0', 'page=0', 'limit=abc']) {
      const res = await jana.get(`/api/companies?${query}`);
      expect(res.status, query).to.equal(400);
      expect(res.body.error.code, query).to.equal('validation_failed');
    }
    expect((await jana.get(`/api/companies/${id}`)).body.data.company.name).to.equal(KOVAC);
  });
});
