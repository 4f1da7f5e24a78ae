import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Express } from 'express';
import { createEmailAccount } from '../support/email-factories.js';
import { testApp } from '../support/harness.js';
import { member } from '../companies/support.js';
import { peopleOf, personOf, receive, type Member, type PersonView } from './support.js';
import type { EmailAccount } from '../../src/models/index.js';

/**
 * Issue 52, finding 1, for people: typing a customer's address shows the person as one's own contact
 * makes them, never the name, phone, title, tags, notes or company colleagues keep on them, nor since
 * when anyone here deals with them; and it gives no right to change or merge them.
 */
describe('people: a typed address unlocks nothing', function () {
  this.timeout(60_000);
  const run = randomBytes(4).toString('hex');
  const LUBO = `lubo@acme-${run}.sk`;
  let app: Express;
  let bob: Member;
  let mallory: Member;
  let bobBox: EmailAccount;
  let malloryBox: EmailAccount;
  let lubo: string;

  before(async () => {
    app = await testApp();
    [bob, mallory] = [await member(app), await member(app)];
    bobBox = await createEmailAccount(bob.fixture.user);
    malloryBox = await createEmailAccount(mallory.fixture.user);
    await receive(bobBox, LUBO, { name: 'Ľubomír Šebo' });
    lubo = (await personOf(LUBO))!;
    const kept = await bob.patch(`/api/people/${lubo}`, { name: 'Ľubomír Šebo (VIP)', phone: '+421 905 111 222', title: 'Riaditeľ', tags: ['dlžník'], notes: 'Zdravotné problémy, volať po 17:00' });
    expect(kept.status, JSON.stringify(kept.body)).to.equal(200);
  });

  it('shows the person as the typed contact makes them, without a shared field, an age or a company', async () => {
    const typed = await mallory.post('/api/contacts', { emailAccountId: malloryBox.id, email: LUBO, name: 'Neznámy' });
    expect(typed.status).to.equal(201);
    expect(await personOf(LUBO)).to.equal(lubo);
    const seen = (await mallory.get(`/api/people/${lubo}`)).body.data.person as PersonView;
    expect(seen).to.deep.equal({
      id: lubo,
      name: 'Neznámy',
      emails: [LUBO],
      company: null,
      phone: null,
      title: null,
      tags: [],
      notes: null,
      lastEmailAt: null,
      emailAccountIds: [malloryBox.id],
      colleague: false,
    });
    // Random ids (version 4): an id tells nothing of when the person first wrote to anyone here.
    expect(lubo).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/);
    expect(JSON.stringify(await peopleOf(mallory))).to.not.contain('VIP').and.not.contain('Zdravotné');
  });

  it('finds the person neither by the words nor the tags colleagues wrote', async () => {
    for (const search of ['VIP', 'Ľubomír', 'riaditel']) expect((await peopleOf(mallory, `&search=${encodeURIComponent(search)}`)).map((p) => p.id), search).to.not.include(lubo);
    expect((await peopleOf(mallory, `&search=${encodeURIComponent('neznamy')}`)).map((p) => p.id)).to.deep.equal([lubo]);
    expect(await peopleOf(mallory, `&tag=${encodeURIComponent('dlžník')}`)).to.deep.equal([]);
  });

  it('gives no right to change the person or to merge them (403, nothing changes)', async () => {
    const write = await mallory.patch(`/api/people/${lubo}`, { notes: 'prepísané' });
    expect(write.status).to.equal(403);
    await receive(malloryBox, `moj-${run}@zakaznik-${run}.sk`);
    const mine = (await personOf(`moj-${run}@zakaznik-${run}.sk`))!;
    // Merged into her own person, Ľubomír's notes would come into her sight: refused both ways.
    for (const [target, source] of [
      [mine, lubo],
      [lubo, mine],
    ]) {
      const merge = await mallory.post(`/api/people/${target}/merge`, { sourceIds: [source] });
      expect(merge.status, `${target} <- ${source}`).to.equal(403);
    }
    expect((await bob.get(`/api/people/${lubo}`)).body.data.person).to.include({ notes: 'Zdravotné problémy, volať po 17:00', name: 'Ľubomír Šebo (VIP)' });
    expect((await mallory.get(`/api/people/${mine}`)).status).to.equal(200);
  });

  it('shows the shared fields once the caller has mail with the person', async () => {
    await receive(malloryBox, LUBO);
    const seen = (await mallory.get(`/api/people/${lubo}`)).body.data.person as PersonView;
    expect(seen).to.include({ name: 'Ľubomír Šebo (VIP)', notes: 'Zdravotné problémy, volať po 17:00', phone: '+421 905 111 222' });
  });
});
