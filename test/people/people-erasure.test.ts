import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import { sessionFor } from '../support/auth.js';
import { createUser } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { binaryParser } from '../timesheets/helpers.js';
import { lines, unzip } from '../privacy/helpers.js';
import { personOf, receive, team, type Team } from './support.js';

/**
 * Privacy and people (issue 46, issue 52 finding 4): the export names the person record of the address;
 * the erasure removes the address from it and the record with it, or, when a merge left it other
 * addresses, every field staff kept about the erased person.
 */
describe('people: privacy export and erasure', function () {
  this.timeout(60_000);
  const run = randomBytes(4).toString('hex');
  const WORK = `ana@klinika-${run}.sk`;
  const HOME = `ana.${run}@gmail.com`;
  const ALONE = `jozef@klinika-${run}.sk`;
  let app: Express;
  let t: Team;
  let admin: string;
  let ana: string;

  before(async () => {
    app = await testApp();
    t = await team(app, run);
    admin = (await sessionFor(await createUser({ role: 'admin' }))).bearer;
    for (const address of [WORK, HOME, ALONE]) await receive(t.teamBox, address);
    await receive(t.aliceBox, WORK);
    ana = (await personOf(WORK))!;
    expect((await t.carol.post(`/api/people/${ana}/merge`, { sourceIds: [await personOf(HOME)] })).status).to.equal(200);
    expect((await t.carol.patch(`/api/people/${ana}`, { name: 'Ana Nováková', phone: '+421 903 000 111', tags: ['pacientka'], notes: 'Zdravotné problémy, volať po 17:00' })).status).to.equal(200);
    expect((await t.carol.patch(`/api/people/${await personOf(ALONE)}`, { notes: 'Jozef: dlh' })).status).to.equal(200);
  });

  const exportOf = async (email: string) => {
    const res = await request(app).post('/api/admin/privacy/export').set('Authorization', admin).send({ email }).buffer(true).parse(binaryParser);
    expect(res.status).to.equal(200);
    return unzip(res.body as Buffer);
  };
  const erase = async (email: string) => {
    const res = await request(app).post('/api/admin/privacy/erase').set('Authorization', admin).send({ email });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.data.erasure as { people: number; contacts: number };
  };
  const stored = async (id: string) => {
    const ctx = await testContext();
    const [row] = await ctx.db.sequelize.query<Record<string, unknown>>('SELECT name, phone, title, tags, notes, company_id FROM people WHERE id = $1', {
      bind: [id],
      type: QueryTypes.SELECT,
    });
    return row;
  };

  it('exports the person record of the address with every field and address it has', async () => {
    const files = await exportOf(HOME);
    const people = lines(files.get('people.jsonl'));
    expect(people).to.have.length(1);
    expect(people[0]).to.include({ id: ana, name: 'Ana Nováková', phone: '+421 903 000 111', notes: 'Zdravotné problémy, volať po 17:00' });
    expect(people[0].emails).to.deep.equal([HOME, WORK].sort());
    expect(JSON.parse(files.get('summary.json')!)).to.include({ people: 1 });
    expect(lines((await exportOf(`nikto-${run}@nikde.sk`)).get('people.jsonl'))).to.deep.equal([]);
  });

  it('removes a person whose only address is erased', async () => {
    const jozef = (await personOf(ALONE))!;
    expect(await erase(ALONE)).to.include({ people: 1, contacts: 1 });
    expect(await personOf(ALONE)).to.equal(undefined);
    expect(await stored(jozef)).to.equal(undefined);
    expect((await t.carol.get(`/api/people/${jozef}`)).status).to.equal(404);
  });

  it('empties a person the erased address leaves with other addresses, and drops the address from them', async () => {
    expect(await erase(WORK)).to.include({ people: 1, contacts: 2 });
    expect(await personOf(WORK)).to.equal(undefined);
    expect(await stored(ana)).to.deep.equal({ name: null, phone: null, title: null, tags: [], notes: null, company_id: null });
    const seen = (await t.carol.get(`/api/people/${ana}`)).body.data.person;
    expect(seen.emails).to.deep.equal([HOME]);
    expect(JSON.stringify(seen)).to.not.contain('Zdravotné').and.not.contain('Nováková');
    // Alice held only the erased address: the person is gone from her sight.
    expect((await t.alice.get(`/api/people/${ana}`)).status).to.equal(404);
  });
});
