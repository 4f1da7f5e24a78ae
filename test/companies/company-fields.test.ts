import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import { AuditActions } from '../../src/audit/audit-service.js';
import { AuditLog } from '../../src/models/index.js';
import { createEmailAccount } from '../support/email-factories.js';
import { testApp } from '../support/harness.js';
import { addContact, member, type Member } from './support.js';

/** PATCH /api/companies/:id with the company fields of issue 46: IČO, IČ DPH, address, phone, web. */
describe('company fields', function () {
  this.timeout(30_000);
  const run = randomBytes(4).toString('hex');
  let app: Express;
  let jana: Member;
  let companyId: string;

  before(async () => {
    app = await testApp();
    jana = await member(app);
    const box = await createEmailAccount(jana.fixture);
    companyId = (await addContact(jana, box.id, `jan@fields-${run}.sk`)).companyId!;
  });

  it('stores and returns them, normalised (spaces dropped, VAT id upper-cased), in the detail and the list; audited by field name', async () => {
    const res = await jana.patch(`/api/companies/${companyId}`, {
      registrationNumber: '35 763 469',
      vatId: 'sk 2020273893',
      address: 'Bajkalská 28, 817 62 Bratislava',
      phone: '+421 2 5882 1111',
      website: 'https://www.telekom.sk',
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const fields = {
      registrationNumber: '35763469',
      vatId: 'SK2020273893',
      address: 'Bajkalská 28, 817 62 Bratislava',
      phone: '+421 2 5882 1111',
      website: 'https://www.telekom.sk',
    };
    expect(res.body.data.company).to.include(fields);
    const listed = await jana.get(`/api/companies?search=fields-${run}`);
    expect(listed.body.data.items[0]).to.include(fields);
    const audit = await AuditLog.findOne({ where: { action: AuditActions.companyUpdated, userId: jana.id }, order: [['id', 'DESC']] });
    expect((audit?.details as { fields: string[] }).fields).to.have.members(Object.keys(fields));
    // A Czech IČO and VAT id, and clearing a field with an empty value.
    const czech = await jana.patch(`/api/companies/${companyId}`, { registrationNumber: '25596641', vatId: 'CZ25596641', website: '' });
    expect(czech.body.data.company).to.include({ registrationNumber: '25596641', vatId: 'CZ25596641', website: null, phone: '+421 2 5882 1111' });
  });

  it('refuses with 400 and a Slovak message what is not an IČO, an IČ DPH, a phone or an http(s) address', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ registrationNumber: '1234567' }, 'IČO musí mať presne 8 číslic'],
      [{ registrationNumber: '35763468' }, 'IČO nemá platnú kontrolnú číslicu'],
      [{ vatId: 'SK123' }, 'IČ DPH musí byť SK a 10 číslic (napr. SK2020123456)'],
      [{ vatId: 'US123456789' }, 'IČ DPH musí začínať kódom krajiny EÚ (napr. SK2020123456)'],
      [{ phone: 'volajte ráno' }, 'Telefón môže obsahovať len číslice, medzery, +, (, ), -, / a . (aspoň 3 číslice)'],
      [{ website: 'ftp://files.example.sk' }, 'Web musí byť adresa začínajúca http:// alebo https://'],
      [{ website: 'javascript:alert(1)' }, 'Web musí byť adresa začínajúca http:// alebo https://'],
      [{ address: 'x'.repeat(501) }, 'Adresa môže mať najviac 500 znakov'],
    ];
    for (const [body, message] of cases) {
      const res = await jana.patch(`/api/companies/${companyId}`, body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error.details.map((d: { message: string }) => d.message)).to.include(message);
    }
    expect((await jana.get(`/api/companies/${companyId}`)).body.data.company.registrationNumber).to.equal('25596641');
  });

  it('shows the company as {id, name} on its contacts, with the name once given', async () => {
    const before = await jana.get(`/api/contacts?companyId=${companyId}`);
    expect(before.body.data.items[0].company).to.deep.equal({ id: companyId, name: `fields-${run}.sk` });
    await jana.patch(`/api/companies/${companyId}`, { name: 'Slovak Telekom, a.s.' });
    const contact = before.body.data.items[0] as { id: string };
    const after = await jana.get(`/api/contacts/${contact.id}`);
    expect(after.body.data.contact.company).to.deep.equal({ id: companyId, name: 'Slovak Telekom, a.s.' });
  });
});
