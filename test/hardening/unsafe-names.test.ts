import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import { addContact, member, type ContactView, type Member } from '../companies/support.js';
import { sessionFor } from '../support/auth.js';
import { createEmailAccount } from '../support/email-factories.js';
import { createUser } from '../support/factories.js';
import { QueryTypes } from 'sequelize';
import { testApp, testContext } from '../support/harness.js';

/**
 * Issue 52, finding 16: control characters and bidi overrides in names everyone sees. A name typed
 * through the API is refused (400, the field named, a Slovak message), the stored name unchanged.
 */
const UNSAFE = ['\u202Ekcolb', 'Kováč\u2066', 'a\u2069b', 'Kov\u202Aáč', 'Ko\u0007váč', 'Ko\u001Bváč', 'Kov\u009Báč', 'Kováč\nPlatby', 'Ko\u007Fváč'];

describe('hardening: control and bidi characters in names', function () {
  this.timeout(30_000);
  const domain = `names-${randomBytes(4).toString('hex')}.sk`;
  let app: Express;
  let jana: Member;
  let boxId: string;
  let contact: ContactView;

  before(async () => {
    app = await testApp();
    jana = await member(app);
    boxId = (await createEmailAccount(jana.fixture)).id;
    contact = await addContact(jana, boxId, `jan@${domain}`, 'Ján Kováč');
  });

  const refused = (res: request.Response, field: string, message: string) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect(res.body).to.deep.include({ success: false });
    expect(res.body.error).to.include({ statusCode: 400, code: 'validation_failed' });
    expect(res.body.error.details).to.deep.include({ field, message });
  };

  it("refuses them in a company's name, and keeps the name", async () => {
    for (const name of UNSAFE)
      refused(await jana.patch(`/api/companies/${contact.companyId}`, { name }), 'name', 'Názov nesmie obsahovať riadiace znaky ani znaky meniace smer textu');
    expect((await jana.get(`/api/companies/${contact.companyId}`)).body.data.company.name).to.equal(domain);
    const fine = await jana.patch(`/api/companies/${contact.companyId}`, { name: '  Kováč a syn, s.r.o.  ', notes: 'Riadok 1\nRiadok 2\tstĺpec' });
    expect(fine.status, JSON.stringify(fine.body)).to.equal(200);
    expect(fine.body.data.company).to.include({ name: 'Kováč a syn, s.r.o.', notes: 'Riadok 1\nRiadok 2\tstĺpec' });
  });

  it("refuses them in a contact's name, added or changed, and keeps the name", async () => {
    const message = 'Meno nesmie obsahovať riadiace znaky ani znaky meniace smer textu';
    for (const name of UNSAFE) {
      refused(await jana.post('/api/contacts', { emailAccountId: boxId, email: `novy@${domain}`, name }), 'name', message);
      refused(await jana.patch(`/api/contacts/${contact.id}`, { name }), 'name', message);
    }
    expect((await jana.get(`/api/contacts/${contact.id}`)).body.data.contact.name).to.equal('Ján Kováč');
    expect((await jana.get(`/api/contacts?search=novy@${domain}`)).body.data.pagination.total).to.equal(0);
  });

  it("refuses them in a person's name, title and tags, and keeps what was there", async () => {
    const [row] = await (await testContext()).db.sequelize.query<{ id: string }>('SELECT person_id AS id FROM person_emails WHERE email = $1', {
      bind: [`jan@${domain}`],
      type: QueryTypes.SELECT,
    });
    for (const name of UNSAFE) {
      refused(await jana.patch(`/api/people/${row.id}`, { name }), 'name', 'Meno nesmie obsahovať riadiace znaky ani znaky meniace smer textu');
      refused(await jana.patch(`/api/people/${row.id}`, { title: name }), 'title', 'Funkcia nesmie obsahovať riadiace znaky ani znaky meniace smer textu');
      refused(await jana.patch(`/api/people/${row.id}`, { tags: [name] }), 'tags.0', 'Štítok nesmie obsahovať riadiace znaky ani znaky meniace smer textu');
    }
    expect((await jana.get(`/api/people/${row.id}`)).body.data.person).to.include({ name: 'Ján Kováč', title: null });
  });

  it("refuses them in a staff member's first and last name", async () => {
    const admin = await sessionFor(await createUser({ role: 'admin' }));
    const create = (body: object) => request(app).post('/api/admin/users').set('Authorization', admin.bearer).send(body);
    const username = `names${randomBytes(3).toString('hex')}`;
    refused(await create({ username, firstName: 'Ján\u202E' }), 'firstName', 'Meno nesmie obsahovať riadiace znaky ani znaky meniace smer textu');
    refused(await create({ username, lastName: 'Ko\u0000váč' }), 'lastName', 'Meno nesmie obsahovať riadiace znaky ani znaky meniace smer textu');
    expect((await create({ username, firstName: 'Ján', lastName: 'Kováč' })).status).to.equal(201);
  });
});
