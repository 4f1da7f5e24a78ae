import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { AuditActions } from '../../src/audit/audit-service.js';
import { AuditLog } from '../../src/models/index.js';
import { QueryTypes } from 'sequelize';
import { testApp, testContext } from '../support/harness.js';
import { peopleOf, personOf, receive, team, type Member, type PersonView, type Team } from './support.js';

const day = (n: number) => new Date(Date.UTC(2026, 9, n, 9, 0, 0));

/** GET/PATCH /api/people over two personal mailboxes and a team mailbox (issue 46). */
describe('people', function () {
  this.timeout(60_000);
  const run = randomBytes(4).toString('hex');
  const ACME = `acme-${run}.sk`;
  const LUBO = `lubo@${ACME}`;
  let app: Express;
  let t: Team;
  let lubo: string;

  before(async () => {
    app = await testApp();
    t = await team(app, run);
    // One customer writes to all three mailboxes: one person, three contacts.
    await receive(t.aliceBox, LUBO, { name: 'Ľubomír Šebo', date: day(2) });
    await receive(t.bobBox, LUBO, { name: 'L. Šebo', date: day(5) });
    await receive(t.teamBox, LUBO, { name: 'Ľubo Šebo', date: day(4) });
    await receive(t.teamBox, `zuzana@${ACME}`, { name: 'Zuzana Kováčová', date: day(3) });
    lubo = (await personOf(LUBO))!;
  });

  const item = (list: PersonView[], id: string) => list.find((p) => p.id === id);

  it('makes one person of an address that three mailboxes hold, shown to each reader with their own mailboxes only', async () => {
    const alices = item(await peopleOf(t.alice), lubo)!;
    expect(alices).to.include({ name: 'Ľubomír Šebo', lastEmailAt: day(2).toISOString(), colleague: false });
    expect(alices.emails).to.deep.equal([LUBO]);
    expect(alices.emailAccountIds).to.deep.equal([t.aliceBox.id]);
    const bobs = item(await peopleOf(t.bob), lubo)!;
    expect(bobs).to.include({ name: 'L. Šebo', lastEmailAt: day(5).toISOString() });
    expect(bobs.emailAccountIds).to.deep.equal([t.bobBox.id]);
    for (const who of [t.carol, t.editor, t.viewer]) {
      const seen = item(await peopleOf(who), lubo)!;
      expect(seen.emailAccountIds).to.deep.equal([t.teamBox.id]);
      expect(seen.company).to.deep.equal({ id: seen.company!.id, name: ACME });
    }
    // An editor without canRead reads no mail of the team mailbox: no person; an outsider neither.
    for (const who of [t.noRead, t.outsider]) {
      expect(item(await peopleOf(who), lubo)).to.equal(undefined);
      expect((await who.get(`/api/people/${lubo}`)).status).to.equal(404);
    }
  });

  it('lists newest correspondence first and pages with a total', async () => {
    const mine = (await peopleOf(t.carol)).filter((p) => p.emails.some((e) => e.endsWith(`@${ACME}`)));
    expect(mine.map((p) => p.emails[0])).to.deep.equal([LUBO, `zuzana@${ACME}`]);
    const page = await t.carol.get('/api/people?limit=1&page=2&search=' + encodeURIComponent(ACME));
    expect(page.status).to.equal(200);
    expect(page.body.data.items.map((p: PersonView) => p.emails[0])).to.deep.equal([`zuzana@${ACME}`]);
    expect(page.body.data.pagination).to.include({ page: 2, limit: 1, total: 2, totalExact: true, hasNext: false });
  });

  it('searches name, address and company without accents or letter case, words in any order', async () => {
    const found = async (search: string) => (await peopleOf(t.carol, `&search=${encodeURIComponent(search)}`)).map((p) => p.id);
    expect(await found('sebo')).to.deep.equal([lubo]);
    expect(await found('ŠEBO ľubo')).to.deep.equal([lubo]);
    expect(await found(`kovacova ${ACME}`)).to.deep.equal([await personOf(`zuzana@${ACME}`)]);
    expect(await found(`sebo nikto-${run}`)).to.deep.equal([]);
    // The name another mailbox gave ("L. Šebo" in bob's) is not carol's to search by.
    expect(await found('L.')).to.not.include(lubo);
  });

  it('shares the fields one editor sets with every reader, audited by field name only', async () => {
    const changed = await t.editor.patch(`/api/people/${lubo}`, {
      name: 'Ľubomír Šebo ml.',
      phone: '+421 905 123 456',
      title: 'Konateľ',
      tags: ['zákazník', 'Žilina', 'ZÁKAZNÍK'],
      notes: 'Volať po 10:00',
    });
    expect(changed.status, JSON.stringify(changed.body)).to.equal(200);
    expect(changed.body.data.person).to.include({ name: 'Ľubomír Šebo ml.', phone: '+421 905 123 456', title: 'Konateľ', notes: 'Volať po 10:00' });
    expect(changed.body.data.person.tags).to.deep.equal(['zákazník', 'Žilina']);
    for (const who of [t.alice, t.bob, t.viewer]) {
      const res = await who.get(`/api/people/${lubo}`);
      expect(res.body.data.person).to.include({ name: 'Ľubomír Šebo ml.', notes: 'Volať po 10:00' });
    }
    expect((await peopleOf(t.alice, '&tag=zilina')).map((p) => p.id)).to.deep.equal([lubo]);
    // A company's people with a tag: the company's people are the candidates, the tag is checked on each
    // (Zuzana of the same company has none).
    const acme = (await t.carol.get(`/api/people/${lubo}`)).body.data.person.company.id;
    expect((await peopleOf(t.carol, `&companyId=${acme}`)).map((p) => p.id)).to.have.members([lubo, await personOf(`zuzana@${ACME}`)]);
    expect((await peopleOf(t.carol, `&companyId=${acme}&tag=zilina`)).map((p) => p.id)).to.deep.equal([lubo]);
    expect((await peopleOf(t.alice, '&search=mlad')).map((p) => p.id)).to.deep.equal([]);
    expect((await peopleOf(t.alice, '&search=ml.')).map((p) => p.id)).to.deep.equal([lubo]);
    const audit = await AuditLog.findOne({ where: { action: AuditActions.personUpdated, userId: t.editor.id }, order: [['id', 'DESC']] });
    expect(audit?.details).to.deep.equal({ personId: lubo, fields: ['name', 'phone', 'title', 'tags', 'notes'] });
    // Cleared again: the contact's own name shows.
    expect((await t.alice.patch(`/api/people/${lubo}`, { name: '' })).body.data.person.name).to.equal('Ľubomír Šebo');
  });

  it('refuses a viewer (403) and someone who does not see the person (404), changing nothing', async () => {
    const before = (await t.carol.get(`/api/people/${lubo}`)).body.data.person;
    const viewer = await t.viewer.patch(`/api/people/${lubo}`, { notes: 'prepísané' });
    expect(viewer.status).to.equal(403);
    expect(viewer.body.error.code).to.equal('email_account_forbidden');
    for (const who of [t.noRead, t.outsider]) expect((await who.patch(`/api/people/${lubo}`, { notes: 'prepísané' })).status).to.equal(404);
    expect((await t.carol.get(`/api/people/${lubo}`)).body.data.person).to.deep.equal(before);
  });

  it('files a person under a company the editor sees, and not under one they do not (404)', async () => {
    const company = (await t.carol.get(`/api/people/${lubo}`)).body.data.person.company;
    expect((await t.carol.patch(`/api/people/${lubo}`, { companyId: null })).body.data.person.company).to.equal(null);
    // Another team's company (only bob has mail there): 404 for carol, as GET /api/companies/{id} is.
    await receive(t.bobBox, `info@druha-${run}.sk`, { date: day(6) });
    const other = (await t.bob.get(`/api/people/${await personOf(`info@druha-${run}.sk`)}`)).body.data.person.company;
    const refused = await t.carol.patch(`/api/people/${lubo}`, { companyId: other.id });
    expect(refused.status).to.equal(404);
    expect(refused.body.error.message).to.equal('Firma neexistuje');
    const back = await t.carol.patch(`/api/people/${lubo}`, { companyId: company.id });
    expect(back.body.data.person.company).to.deep.equal(company);
    expect((await peopleOf(t.carol, `&companyId=${company.id}`)).map((p) => p.id)).to.include(lubo);
    expect((await t.carol.get(`/api/people?companyId=${other.id}`)).status).to.equal(404);
  });

  it('answers bad input with the envelope and a Slovak message, never a 500', async () => {
    const bad: Array<[Member, string, unknown, number]> = [
      [t.carol, `/api/people/${lubo}`, {}, 400],
      [t.carol, `/api/people/${lubo}`, { notes: 'x'.repeat(10_001) }, 400],
      [t.carol, `/api/people/${lubo}`, { name: 'a'.repeat(201) }, 400],
      [t.carol, `/api/people/${lubo}`, { name: 'Evil\u202Egnp.exe' }, 400],
      [t.carol, `/api/people/${lubo}`, { name: 'Dva\nriadky' }, 400],
      [t.carol, `/api/people/${lubo}`, { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 400],
      [t.carol, `/api/people/${lubo}`, { tags: 'zákazník' }, 400],
      [t.carol, `/api/people/${lubo}`, { tags: ['a,b'] }, 400],
      [t.carol, `/api/people/${lubo}`, { phone: 'zavolaj mi' }, 400],
      [t.carol, `/api/people/${lubo}`, { notes: 5 }, 400],
      [t.carol, `/api/people/${lubo}`, { companyId: 'firma' }, 400],
      [t.carol, `/api/people/${lubo}`, { email: 'iny@acme.sk' }, 400],
      [t.carol, '/api/people/nie-je-uuid', { notes: 'x' }, 400],
      [t.carol, `/api/people/${crypto.randomUUID()}`, { notes: 'x' }, 404],
    ];
    for (const [who, path, body, status] of bad) {
      const res = await who.patch(path, body);
      expect(res.status, `${path} ${JSON.stringify(body).slice(0, 80)}`).to.equal(status);
      expect(res.body.success).to.equal(false);
      expect(res.body.error.message).to.match(/[áäčďéíĺľňóôŕšťúýž]|neexistuje|Neplatn/i);
    }
    for (const query of ['includeColleagues=ano', 'companyId=x', 'limit=1000', 'tag=', `search=${'a'.repeat(201)}`, 'sort=name']) {
      const res = await t.carol.get(`/api/people?${query}`);
      expect(res.status, query).to.equal(400);
    }
    expect((await t.carol.get('/api/people/nie-je-uuid')).status).to.equal(400);
    const unchanged = (await t.carol.get(`/api/people/${lubo}`)).body.data.person;
    expect(unchanged.notes).to.equal('Volať po 10:00');
  });

  it("lists a person's mail across the caller's mailboxes, and 404 for a person they do not see", async () => {
    // Bob lets alice read his mailbox: Ľubomír is then one person in two of her mailboxes.
    expect((await t.bob.post(`/api/email-accounts/${t.bobBox.id}/share`, { userId: t.alice.id, role: 'viewer', canRead: true })).status).to.equal(201);
    const person = (await t.alice.get(`/api/people/${lubo}`)).body.data.person as PersonView;
    expect([...person.emailAccountIds].sort()).to.deep.equal([t.aliceBox.id, t.bobBox.id].sort());
    expect(person.lastEmailAt).to.equal(day(5).toISOString());
    const mail = await t.alice.get(`/api/emails?personId=${lubo}`);
    expect(mail.status, JSON.stringify(mail.body)).to.equal(200);
    expect(mail.body.data.items.map((e: { emailAccountId: string; date: string }) => [e.emailAccountId, e.date])).to.deep.equal([
      [t.bobBox.id, day(5).toISOString()],
      [t.aliceBox.id, day(2).toISOString()],
    ]);
    expect(mail.body.data.pagination).to.include({ total: 2, totalExact: true });
    const one = await t.alice.get(`/api/emails?personId=${lubo}&emailAccountId=${t.aliceBox.id}`);
    expect(one.body.data.items.map((e: { emailAccountId: string }) => e.emailAccountId)).to.deep.equal([t.aliceBox.id]);
    for (const who of [t.outsider, t.noRead]) {
      const res = await who.get(`/api/emails?personId=${lubo}`);
      expect(res.status).to.equal(404);
      expect(res.body.error.message).to.equal('Osoba neexistuje');
    }
    expect((await t.alice.get(`/api/emails?personId=${lubo}&contactId=${crypto.randomUUID()}`)).status).to.equal(400);
    // The share removed: at once, the person shows alice her own mailbox only.
    expect((await t.bob.del(`/api/email-accounts/${t.bobBox.id}/share/${t.alice.id}`)).status).to.equal(200);
    expect((await t.alice.get(`/api/people/${lubo}`)).body.data.person.emailAccountIds).to.deep.equal([t.aliceBox.id]);
    expect((await t.alice.get(`/api/emails?personId=${lubo}`)).body.data.items).to.have.length(1);
  });

  it('answers API tokens by the people scopes: people:read lists and reads, people:write changes, others are refused', async () => {
    const token = async (scopes: string[]) => {
      const res = await t.carol.post('/api/tokens', { name: `people ${scopes.join(' ')}`, scopes });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return `Bearer ${res.body.data.token as string}`;
    };
    const [reader, writer, contacts] = [await token(['people:read']), await token(['people:write']), await token(['contacts:write'])];
    const call = (method: 'get' | 'patch' | 'post', path: string, auth: string, body?: object) => request(app)[method](path).set('Authorization', auth).send(body);
    expect((await call('get', '/api/people', reader)).status).to.equal(200);
    expect((await call('get', `/api/people/${lubo}`, reader)).status).to.equal(200);
    for (const [method, path, body] of [
      ['patch', `/api/people/${lubo}`, { title: 'x' }],
      ['post', `/api/people/${lubo}/merge`, { sourceIds: [crypto.randomUUID()] }],
    ] as const) {
      const refused = await call(method, path, reader, body);
      expect(refused.status, path).to.equal(403);
      expect(refused.body.error).to.include({ code: 'insufficient_scope' });
      expect(refused.body.error.details).to.deep.equal({ requiredScope: 'people:write' });
    }
    const other = await call('get', '/api/people', contacts);
    expect(other.status).to.equal(403);
    expect(other.body.error.details).to.deep.equal({ requiredScope: 'people:read' });
    const written = await call('patch', `/api/people/${lubo}`, writer, { title: 'Konateľ s.r.o.' });
    expect(written.status).to.equal(200);
    expect(written.body.data.person.title).to.equal('Konateľ s.r.o.');
  });

  it("leaves colleagues (the installation's own addresses) out of the people and out of awaiting-reply", async () => {
    const colleagueContact = await receive(t.aliceBox, t.bobBox.email, { name: 'Bob Kolega', date: day(7) });
    const colleague = (await personOf(t.bobBox.email))!;
    expect((await peopleOf(t.alice)).map((p) => p.id))
      .to.include(lubo)
      .and.not.include(colleague);
    const all = await peopleOf(t.alice, '&includeColleagues=true');
    expect(item(all, colleague)).to.include({ colleague: true, name: 'Bob Kolega' });
    expect(item(all, lubo)).to.include({ colleague: false });
    expect((await peopleOf(t.alice, '&search=kolega')).map((p) => p.id)).to.deep.equal([]);
    // The customer's mail awaits a reply, the colleague's does not: in both lists and in the conversation.
    for (const path of ['/api/emails/awaiting-reply?limit=100', '/api/emails?awaitingReply=true&limit=100']) {
      const waiting = (await t.alice.get(path)).body.data.items.map((e: { contactId: string }) => e.contactId);
      expect(waiting, path).to.not.include(colleagueContact);
      expect(waiting.length, path).to.be.above(0);
    }
    const waitingOf = async (contactId: string) => {
      const ctx = await testContext();
      const [thread] = await ctx.db.sequelize.query<{ id: string }>(
        'SELECT t.id FROM email_threads t JOIN emails e ON e.email_account_id = t.email_account_id AND e.thread_id = t.thread_id WHERE e.contact_id = $1 LIMIT 1',
        { bind: [contactId], type: QueryTypes.SELECT },
      );
      const res = await t.alice.get(`/api/conversations/${thread.id}`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body.data.conversation.waitingSince as string | null;
    };
    expect(await waitingOf(colleagueContact)).to.equal(null);
    const [luboContact] = (await (
      await testContext()
    ).db.sequelize.query<{ id: string }>('SELECT id FROM contacts WHERE email_account_id = $1 AND email = $2', {
      bind: [t.aliceBox.id, LUBO],
      type: QueryTypes.SELECT,
    })) as Array<{ id: string }>;
    expect(await waitingOf(luboContact.id)).to.be.a('string');
  });
});
