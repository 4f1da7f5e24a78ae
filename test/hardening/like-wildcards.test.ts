import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import { escapeLikeBeforeFold } from '../../src/db/escape-like.js';
import { addContact, member, type Member } from '../companies/support.js';
import { createEmailAccount } from '../support/email-factories.js';
import { sessionFor } from '../support/auth.js';
import { createUser } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import request from 'supertest';

/**
 * Issue 52, finding 14: the contact, company and user searches escape % _ \ and then fold the term
 * with crm_fold, which turns fullwidth ％ ＿ ＼ (and a few other forms) into live wildcards. Each
 * search here would find its record through such a wildcard, and must find nothing.
 */
describe('hardening: fullwidth LIKE metacharacters in searches', function () {
  this.timeout(30_000);
  const run = randomBytes(4).toString('hex');
  const domain = `alfa${run}.sk`;
  // Each would match "alfa<run>" as a pattern: ％ as %, ＿ as _, ＼a as an escaped "a".
  const wildcards = [`l％a${run}`, `a＿fa${run}`, `alf＼a${run}`, `l﹪a${run}`];
  let app: Express;
  let jana: Member;

  before(async () => {
    app = await testApp();
    jana = await member(app);
    const box = await createEmailAccount(jana.fixture);
    const contact = await addContact(jana, box.id, `jan@${domain}`, `Alfa${run} Zľava 50％`);
    expect((await jana.patch(`/api/companies/${contact.companyId}`, { name: `Alfa${run}` })).status).to.equal(200);
  });

  const found = async (path: string, search: string, bearer?: string) => {
    const res = await (bearer ? request(app).get(path).set('Authorization', bearer) : jana.get(path)).query({ search });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.data.pagination.total as number;
  };

  it('finds the contact by its text, and not through a fullwidth wildcard', async () => {
    expect(await found('/api/contacts', `alfa${run}`)).to.equal(1);
    // Folded alike: a typed % or ％ finds a stored ％, as text.
    expect(await found('/api/contacts', `alfa${run} 50％`)).to.equal(1);
    expect(await found('/api/contacts', `alfa${run} 50%`)).to.equal(1);
    for (const search of wildcards) expect(await found('/api/contacts', search), search).to.equal(0);
  });

  it('finds the company by its name, and not through a fullwidth wildcard', async () => {
    expect(await found('/api/companies', `alfa${run}`)).to.equal(1);
    for (const search of wildcards) expect(await found('/api/companies', search), search).to.equal(0);
  });

  it('finds the person by name and company, and not through a fullwidth wildcard', async () => {
    expect(await found('/api/people', `alfa${run}`)).to.equal(1);
    expect(await found('/api/people', `alfa${run} 50％`)).to.equal(1);
    for (const search of wildcards) expect(await found('/api/people', search), search).to.equal(0);
  });

  it("finds a user in the admin's list by name, and not through a fullwidth wildcard", async () => {
    await createUser({ username: `lk${run}alfa` });
    const admin = await sessionFor(await createUser({ role: 'admin' }));
    expect(await found('/api/admin/users', `${run}alfa`, admin.bearer)).to.equal(1);
    for (const search of [`${run}a％a`, `${run}a＿fa`, `${run}a＼lfa`]) expect(await found('/api/admin/users', search, admin.bearer), search).to.equal(0);
  });

  it("escapes every character this server's crm_fold turns into % _ or \\", async () => {
    const ctx = await testContext();
    const [rows] = await ctx.db.sequelize.query(`SELECT chr(i) AS c FROM generate_series(128, 65533) i WHERE (i < 55296 OR i > 57343) AND crm_fold(chr(i)) ~ '[%_\\\\]'`);
    const lookalikes = (rows as Array<{ c: string }>).map((r) => r.c);
    expect(lookalikes, 'the server folds some lookalikes (the test must be able to fail)').to.include('％');
    for (const c of lookalikes) expect(escapeLikeBeforeFold(c), `U+${c.codePointAt(0)!.toString(16)}`).to.match(/^\\[%_\\]$/);
  });
});
