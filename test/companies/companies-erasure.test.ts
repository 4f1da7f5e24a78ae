import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import { QueryTypes } from 'sequelize';
import { sessionFor } from '../support/auth.js';
import { createEmailAccount } from '../support/email-factories.js';
import { createUser } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { addContact, member } from './support.js';

/**
 * Erasing a person (POST /api/admin/privacy/erase) also erases the company of a personal domain
 * that only they were filed under; a company other contacts are still filed under stays.
 */
describe('companies: a privacy erasure', function () {
  this.timeout(60_000);
  const run = randomBytes(4).toString('hex');
  let app: Express;

  const companiesOf = async (domains: string[]) => {
    const ctx = await testContext();
    const rows = await ctx.db.sequelize.query<{ domain: string }>('SELECT domain FROM companies WHERE domain IN (:domains) ORDER BY domain', {
      replacements: { domains },
      type: QueryTypes.SELECT,
    });
    return rows.map((r) => r.domain);
  };

  before(async () => {
    app = await testApp();
  });

  it('removes the company only the erased address was filed under, and keeps one that others share', async () => {
    const personal = `novak-rodina-${run}.sk`;
    const shared = `stavby-${run}.sk`;
    const jana = await member(app);
    const box = await createEmailAccount(jana.fixture);
    await addContact(jana, box.id, `jana@${personal}`, 'Jana Nováková');
    await addContact(jana, box.id, `jana@${shared}`);
    await addContact(jana, box.id, `peter@${shared}`);
    expect(await companiesOf([personal, shared])).to.deep.equal([personal, shared]);

    const admin = (await sessionFor(await createUser({ role: 'admin' }))).bearer;
    for (const email of [`jana@${personal}`, `jana@${shared}`]) {
      const res = await request(app).post('/api/admin/privacy/erase').set('Authorization', admin).send({ email });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    }

    expect(await companiesOf([personal, shared])).to.deep.equal([shared]);
    const list = await jana.get(`/api/companies?search=${encodeURIComponent(shared)}`);
    expect(list.status).to.equal(200);
    expect(list.body.data.items.map((c: { domain: string; contactCount: number }) => [c.domain, c.contactCount])).to.deep.equal([[shared, 1]]);
  });
});
