import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { testApp, testContext } from '../support/harness.js';
import { crmUser, freshMailUser, linkViaApi, put, type CrmUser, type MailUser } from '../sync/helpers.js';

const day = (n: number) => new Date(Date.UTC(2026, 1, n, 10, 0, 0));

interface Listed {
  id: string;
  domain: string;
  name: string;
  contactCount: number;
  lastEmailAt: string | null;
}

/** Companies as the real sync fills them from a Cyrus mailbox: first sync and a later one. */
describe('companies from synced mail', function () {
  this.timeout(90_000);
  const run = randomBytes(4).toString('hex');
  const FIRMA = `firma-${run}.example`;
  const NOVA = `nova-${run}.example`;
  let app: Express;
  let ctx: AppContext;
  let mail: MailUser;
  let owner: CrmUser;
  let accountId: string;

  const companies = async (): Promise<Listed[]> => {
    const res = await owner.as(request(app).get('/api/companies?limit=100'));
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.data.items as Listed[];
  };
  const contacts = async (): Promise<Array<{ email: string; companyId: string | null }>> => {
    const res = await owner.as(request(app).get('/api/contacts?limit=100&sort=name'));
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.data.items;
  };

  before(async () => {
    app = await testApp();
    ctx = await testContext();
    mail = await freshMailUser('company');
    owner = await crmUser();
    const me = { name: 'Staff Member', email: mail.user };
    const colleague = `kolega-${run}@${mail.user.split('@')[1]}`;
    await put(mail, 'INBOX', { from: { name: 'Alžbeta Nová', email: `alzbeta@${FIRMA}` }, to: me, subject: 'Ponuka', body: 'Dobrý deň', date: day(2) });
    await put(mail, 'INBOX', { from: { name: 'Boris Firma', email: `Boris@${FIRMA.toUpperCase()}` }, to: me, cc: colleague, subject: 'Faktúra', body: 'V prílohe', date: day(6) });
    await put(mail, 'INBOX', { from: { name: 'Anna Súkromná', email: `anna.${run}@gmail.com` }, to: me, subject: 'Ahoj', body: 'Ahoj', date: day(7) });
    await put(mail, 'INBOX', { from: { name: 'Jozef', email: `jozef.${run}@azet.sk` }, to: me, subject: 'Otázka', body: 'Otázka', date: day(8) });
    await put(mail, 'INBOX', { from: { name: 'Kolega', email: colleague }, to: me, subject: 'Porada', body: 'O desiatej', date: day(9) });
    accountId = await linkViaApi(app, ctx, owner, mail);
  });

  it("makes one company of the correspondents' domain, none of free-mail or the mailbox's own domain", async () => {
    const listed = await companies();
    expect(listed.map((c) => [c.domain, c.name, c.contactCount, c.lastEmailAt])).to.deep.equal([[FIRMA, FIRMA, 2, day(6).toISOString()]]);
    const people = await contacts();
    const firm = people.filter((c) => c.email.endsWith(`@${FIRMA}`));
    expect(firm.map((c) => c.email)).to.deep.equal([`alzbeta@${FIRMA}`, `boris@${FIRMA}`]);
    expect(firm.every((c) => c.companyId === listed[0].id)).to.equal(true);
    const others = people.filter((c) => !c.email.endsWith(`@${FIRMA}`));
    expect(others.map((c) => c.email)).to.include.members([`anna.${run}@gmail.com`, `jozef.${run}@azet.sk`]);
    expect(
      others.every((c) => c.companyId === null),
      JSON.stringify(others),
    ).to.equal(true);
  });

  it('adds the company of a new domain in a later sync and moves the figures of a known one', async () => {
    const me = { email: mail.user };
    await put(mail, 'INBOX', { from: { name: 'Nový Partner', email: `partner@${NOVA}` }, to: me, subject: 'Spolupráca', body: 'Dobrý deň', date: day(12) });
    await put(mail, 'INBOX', { from: { name: 'Alžbeta Nová', email: `alzbeta@${FIRMA}` }, to: me, subject: 'Re: Ponuka', body: 'Súhlasíme', date: day(14) });
    expect((await ctx.services.mailSync.syncAccount(accountId)).outcome).to.equal('ok');
    const listed = await companies();
    expect(listed.map((c) => [c.domain, c.contactCount, c.lastEmailAt])).to.deep.equal([
      [FIRMA, 2, day(14).toISOString()],
      [NOVA, 1, day(12).toISOString()],
    ]);
    const nova = listed.find((c) => c.domain === NOVA)!;
    const filtered = await owner.as(request(app).get(`/api/contacts?companyId=${nova.id}`));
    expect(filtered.body.data.items.map((c: { email: string }) => c.email)).to.deep.equal([`partner@${NOVA}`]);
  });
});
