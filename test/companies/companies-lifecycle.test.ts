import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import { unzip, lines } from '../privacy/helpers.js';
import { sessionFor } from '../support/auth.js';
import { createEmail, createEmailAccount } from '../support/email-factories.js';
import { createUser } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { Contact } from '../../src/models/index.js';
import { addContact, member, type Member } from './support.js';

interface CompanyRow {
  id: string;
  domain: string;
  notes: string | null;
}

const companyOf = async (domain: string): Promise<CompanyRow | undefined> => {
  const ctx = await testContext();
  const [row] = await ctx.db.sequelize.query<CompanyRow>('SELECT id, domain, notes FROM companies WHERE domain = $domain', { bind: { domain }, type: QueryTypes.SELECT });
  return row;
};

/** Audit records whose details name `text` anywhere. */
const auditNaming = async (text: string): Promise<Array<{ action: string }>> => {
  const ctx = await testContext();
  return ctx.db.sequelize.query<{ action: string }>('SELECT action FROM audit_logs WHERE position($text IN details::text) > 0', { bind: { text }, type: QueryTypes.SELECT });
};

/**
 * Issue 52, findings 4 and 11: what staff wrote on a company is about the people filed there. A company
 * goes with its last contact (deleted by hand, with its mailbox, by an erasure or the retention), so its
 * notes never greet the next person who adds a contact at that domain; an erasure leaves neither the
 * company of a personal domain nor an audit record naming that domain; the export carries the company.
 */
describe('companies: they go with their last contact', function () {
  this.timeout(60_000);
  const run = randomBytes(4).toString('hex');
  let app: Express;
  let admin: string;

  /** A member's mailbox with a contact at `address` (with mail) and notes written on its company over the API. */
  const personWithCompanyNotes = async (address: string, notes: string): Promise<{ who: Member; accountId: string; contactId: string; companyId: string }> => {
    const who = await member(app);
    const box = await createEmailAccount(who.fixture);
    const contact = await addContact(who, box.id, address, 'Ana Nováková');
    await createEmail(box, (await Contact.findByPk(contact.id))!, { subject: 'Termín' });
    expect(contact.companyId, 'the contact is filed under its company').to.be.a('string');
    const patched = await who.patch(`/api/companies/${contact.companyId}`, { notes });
    expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
    return { who, accountId: box.id, contactId: contact.id, companyId: contact.companyId! };
  };

  before(async () => {
    app = await testApp();
    admin = (await sessionFor(await createUser({ role: 'admin' }))).bearer;
  });

  it('a company goes with its last contact deleted by hand: the next contact at that domain starts a blank one', async () => {
    const domain = `rodina-${run}.sk`;
    const first = await personWithCompanyNotes(`ana@${domain}`, 'Ana: zdravotné problémy, volať po 17:00');
    expect((await companyOf(domain))?.notes).to.match(/Ana/);

    expect((await first.who.del(`/api/contacts/${first.contactId}`)).status).to.equal(200);
    expect(await companyOf(domain), 'the company outlived its last contact').to.equal(undefined);

    const next = await member(app);
    const box = await createEmailAccount(next.fixture);
    await addContact(next, box.id, `peter@${domain}`);
    const company = await companyOf(domain);
    expect(company, 'a contact at the domain files under a company again').to.not.equal(undefined);
    expect(company!.id).to.not.equal(first.companyId);
    expect(company!.notes).to.equal(null);
  });

  it('a company goes with the mailbox that held its only contacts, and stays while another mailbox still has one', async () => {
    const domain = `dielna-${run}.sk`;
    const only = await personWithCompanyNotes(`jan@${domain}`, 'Ján: dlhuje za opravu');
    const other = await member(app);
    const otherBox = await createEmailAccount(other.fixture);
    await addContact(other, otherBox.id, `eva@${domain}`);

    expect((await only.who.del(`/api/email-accounts/${only.accountId}`)).status).to.equal(200);
    expect((await companyOf(domain))?.id, 'another mailbox still files a contact there').to.equal(only.companyId);

    expect((await other.del(`/api/email-accounts/${otherBox.id}`)).status).to.equal(200);
    expect(await companyOf(domain), 'the company outlived every mailbox that knew it').to.equal(undefined);
  });

  it('an erasure leaves no company of the personal domain and no audit record naming it, though the mailbox that held her is gone', async () => {
    const domain = `novak-${run}.sk`;
    const ana = await personWithCompanyNotes(`ana@${domain}`, 'Ana: zdravotné problémy');
    expect((await auditNaming(domain)).map((r) => r.action)).to.include('company.updated');
    expect((await ana.who.del(`/api/email-accounts/${ana.accountId}`)).status).to.equal(200);

    const res = await request(app)
      .post('/api/admin/privacy/erase')
      .set('Authorization', admin)
      .send({ email: `ana@${domain}` });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(await companyOf(domain)).to.equal(undefined);
    expect(await auditNaming(domain), 'audit records still name the erased personal domain').to.deep.equal([]);
  });

  it('an erasure keeps a company others are filed under and names it for review; the export carries the company and its notes', async () => {
    const domain = `stavby-${run}.sk`;
    const ana = await personWithCompanyNotes(`ana@${domain}`, 'Ana: zdravotné problémy');
    const colleague = await member(app);
    const box = await createEmailAccount(colleague.fixture);
    await addContact(colleague, box.id, `peter@${domain}`);

    const exported = await request(app)
      .post('/api/admin/privacy/export')
      .set('Authorization', admin)
      .send({ email: `ana@${domain}` })
      .buffer(true)
      .parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => cb(null, Buffer.concat(chunks)));
      });
    expect(exported.status).to.equal(200);
    const files = await unzip(exported.body as Buffer);
    const companies = lines(files.get('companies.jsonl'));
    expect(companies.map((c) => [c.id, c.domain, c.notes, c.otherContacts])).to.deep.equal([[ana.companyId, domain, 'Ana: zdravotné problémy', 1]]);
    expect(JSON.parse(files.get('summary.json')!)).to.include({ companies: 1 });

    const res = await request(app)
      .post('/api/admin/privacy/erase')
      .set('Authorization', admin)
      .send({ email: `ana@${domain}` });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data.erasure).to.deep.include({ companiesDeleted: 0, companiesKept: [{ id: ana.companyId, domain }] });
    expect((await companyOf(domain))?.id).to.equal(ana.companyId);
  });
});
