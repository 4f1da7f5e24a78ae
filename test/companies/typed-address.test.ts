import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { Contact, type EmailAccount } from '../../src/models/index.js';
import { createEmail, createEmailAccount } from '../support/email-factories.js';
import { testApp, testContext } from '../support/harness.js';
import { crmUser, type CrmUser } from '../sync/helpers.js';
import { exportBytes, importOk } from '../contacts/transfer-support.js';

/**
 * Issue 52, finding 1: seeing a company because you typed (or imported) an address at its domain is
 * no right to what colleagues wrote about it, nor to its existence or age. Only mail the caller may
 * read with the domain shows the company (docs/adr/0136-shared-fields-through-mail.md).
 */
describe('companies: a typed address unlocks nothing', function () {
  this.timeout(60_000);
  const run = randomBytes(4).toString('hex');
  const ACME = `acme-${run}.sk`;
  let app: Express;
  let bob: CrmUser;
  let mallory: CrmUser;
  let bobBox: EmailAccount;
  let malloryBox: EmailAccount;
  let companyId: string;

  /** Mail from `address` in `account`, as the sync stores it (contact filed under its company, linked, last_email_at moved). */
  async function mailFrom(account: EmailAccount, address: string): Promise<string> {
    const ctx = await testContext();
    const created = await ctx.services.contacts.create(account.userId, { emailAccountId: account.id, email: address }, { actor: 'test' });
    const contact = (await Contact.findByPk(created.id))!;
    const date = new Date();
    await createEmail(account, contact, { date, from: address, to: account.email });
    await ctx.db.sequelize.query('UPDATE contacts SET last_email_at = $date WHERE id = $id', { bind: { date, id: contact.id } });
    return created.id;
  }

  const as = (who: CrmUser, method: 'get' | 'patch' | 'post', path: string, body?: object) => who.as(request(app)[method](path)).send(body);

  before(async () => {
    app = await testApp();
    [bob, mallory] = [await crmUser(), await crmUser()];
    bobBox = await createEmailAccount(bob.fixture.user);
    malloryBox = await createEmailAccount(mallory.fixture.user);
    // Bob's team writes with ACME and keeps notes on the company.
    const contactId = await mailFrom(bobBox, `obchod@${ACME}`);
    companyId = (await as(bob, 'get', `/api/contacts/${contactId}`)).body.data.contact.companyId;
    const named = await as(bob, 'patch', `/api/companies/${companyId}`, { name: 'ACME s.r.o.', notes: 'Platí neskoro, volať Petrovi' });
    expect(named.status, JSON.stringify(named.body)).to.equal(200);
  });

  it('does not show, name or let anyone change the company through a contact typed by hand', async () => {
    const typed = await as(mallory, 'post', '/api/contacts', { emailAccountId: malloryBox.id, email: `nikto@${ACME}` });
    expect(typed.status).to.equal(201);
    // Their own contact, without the company others named.
    expect(typed.body.data.contact).to.include({ companyId: null, company: null });
    const read = await as(mallory, 'get', `/api/companies/${companyId}`);
    expect(read.status, JSON.stringify(read.body)).to.equal(404);
    expect(JSON.stringify(read.body)).to.not.contain('Platí neskoro');
    const write = await as(mallory, 'patch', `/api/companies/${companyId}`, { notes: 'prepísané' });
    expect(write.status).to.equal(404);
    expect((await as(mallory, 'get', '/api/companies?limit=100')).body.data.items.map((c: { id: string }) => c.id)).to.not.include(companyId);
    expect((await as(mallory, 'get', `/api/contacts?companyId=${companyId}`)).status).to.equal(404);
    expect((await as(bob, 'get', `/api/companies/${companyId}`)).body.data.company.notes).to.equal('Platí neskoro, volať Petrovi');
  });

  it('neither does an imported address: its export and a template name no company', async () => {
    const answer = await importOk(app, mallory, malloryBox.id, `email,name\r\nimport@${ACME},Importovaný\r\n`);
    expect(answer.created).to.equal(1);
    const exported = await exportBytes(app, mallory, malloryBox.id);
    expect(exported.status).to.equal(200);
    expect(exported.body.toString('utf8')).to.contain(`import@${ACME}`).and.not.contain('ACME s.r.o.');
    const contact = (await as(mallory, 'get', `/api/contacts?search=${encodeURIComponent(`import@${ACME}`)}`)).body.data.items[0];
    expect(contact.company).to.equal(null);
    const template = await as(mallory, 'post', '/api/templates', { name: `Firma ${run}`, subject: 'Pre {{company.name}}', text: 'x' });
    const rendered = await as(mallory, 'post', `/api/templates/${template.body.data.template.id}/render`, { contactId: contact.id });
    expect(rendered.status).to.equal(200);
    expect(rendered.body.data.subject.trim()).to.equal('Pre');
  });

  it('shows the company once the caller has mail with the domain in a mailbox they read', async () => {
    await mailFrom(malloryBox, `faktury@${ACME}`);
    const read = await as(mallory, 'get', `/api/companies/${companyId}`);
    expect(read.status).to.equal(200);
    expect(read.body.data.company).to.include({ name: 'ACME s.r.o.', notes: 'Platí neskoro, volať Petrovi' });
  });
});
