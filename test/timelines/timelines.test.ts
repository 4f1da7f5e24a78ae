import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { testApp, testContext } from '../support/harness.js';
import { companyOfContact, createTask, mail, personOf, team, type Mail, type Member, type Team } from '../tasks/support.js';
import { expectedTimeline, walkByCursor } from './oracle.js';

interface Item {
  type: 'email' | 'task' | 'follow_up';
  at: string;
  email?: { id: string; emailAccountId: string; messageId: string | null; subject: string | null; direction: string; copies: Array<{ id: string; emailAccountId: string }> };
  task?: { id: string; title: string };
  followUp?: { id: string };
}

/** An item's identity: its type and the id of what it carries. */
const key = (i: Item): string => `${i.type}:${i.email?.id ?? i.task?.id ?? i.followUp?.id}`;

/** The newest first days: `daysAgo` days before now at hh:mm UTC. */
const ago = (daysAgo: number, hh = 9, mm = 0): Date => {
  const d = new Date(Date.now() - daysAgo * 86_400_000);
  d.setUTCHours(hh, mm, 0, 0);
  return d;
};

/** GET /api/people/{id}/timeline and GET /api/companies/{id}/timeline (issue 46). */
describe('timelines', function () {
  this.timeout(60_000);
  const run = randomBytes(4).toString('hex');
  const ACME = `acme-${run}.sk`;
  const LUBO = `lubo@${ACME}`;
  let app: Express;
  let t: Team;
  let lubo: string;
  let acme: string;
  const ids: Record<string, string> = {};

  const timeline = async (who: Member, path: string): Promise<Item[]> => {
    const res = await who.get(`${path}${path.includes('?') ? '&' : '?'}limit=100`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.data.items as Item[];
  };

  before(async () => {
    app = await testApp();
    t = await team(app, run);
    // Carol owns the team mailbox and reads bob's as a viewer: two mailboxes that hold some of the same messages.
    expect((await t.bob.post(`/api/email-accounts/${t.bobBox.id}/share`, { userId: t.carol.id, role: 'viewer', canRead: true })).status).to.equal(201);
    const m1 = `<m1-${run}@acme.test>`;
    ids.m1bob = (await mail(t.bobBox, LUBO, { name: 'L. Šebo', messageId: m1, date: ago(9), subject: 'Dopyt' })).emailId;
    const teamCopy = await mail(t.teamBox, LUBO, { name: 'Ľubo Šebo', messageId: m1, date: ago(9), subject: 'Dopyt' });
    ids.m1team = teamCopy.emailId;
    ids.m2alice = (await mail(t.aliceBox, LUBO, { name: 'Ľubomír Šebo', date: ago(8), subject: 'Len Alici' })).emailId;
    ids.m3team = (await mail(t.teamBox, LUBO, { date: ago(7), subject: 'Re: Dopyt', outbound: true })).emailId;
    ids.m4bob = (await mail(t.bobBox, LUBO, { date: ago(6), subject: 'Len Bobovi' })).emailId;
    ids.m5team = (await mail(t.teamBox, LUBO, { date: ago(5), subject: 'Bez Message-ID', messageId: null })).emailId;
    // One message, received a few minutes apart by the two mailboxes: the newer copy is the one shown.
    const m6 = `<m6-${run}@acme.test>`;
    ids.m6bob = (await mail(t.bobBox, LUBO, { messageId: m6, date: ago(4, 10, 0), subject: 'Faktúra' })).emailId;
    ids.m6team = (await mail(t.teamBox, LUBO, { messageId: m6, date: ago(4, 10, 5), subject: 'Faktúra' })).emailId;
    lubo = (await personOf(LUBO))!;
    acme = await companyOfContact(teamCopy.contactId);

    ids.open = (await createTask(t.carol, { title: 'Zavolať', dueAt: ago(7, 12).toISOString(), personId: lubo })).id;
    ids.done = (await createTask(t.carol, { title: 'Hotovo', dueAt: ago(20).toISOString(), personId: lubo })).id;
    expect((await t.carol.patch(`/api/tasks/${ids.done}`, { status: 'done' })).status).to.equal(200);
    ids.bobsPrivate = (await createTask(t.bob, { title: 'Bobova', dueAt: ago(3).toISOString(), personId: lubo })).id;
    ids.followUp = (await (await testContext()).services.followUps.set(t.carol.id, teamCopy.contactId, { dueAt: ago(8, 12) })).followUp.id;
  });

  it("puts the person's mail, tasks and the caller's follow-ups in one list, newest first, each message once", async () => {
    const items = await timeline(t.carol, `/api/people/${lubo}/timeline`);
    expect(items.map(key)).to.deep.equal([
      `task:${ids.done}`,
      `email:${ids.m6team}`,
      `email:${ids.m5team}`,
      `email:${ids.m4bob}`,
      `task:${ids.open}`,
      `email:${ids.m3team}`,
      `follow_up:${ids.followUp}`,
      `email:${ids.m1team}`,
    ]);
    // The copy shown: newer first, then carol's own mailbox; every copy she reads is listed.
    const m1 = items.find((i) => i.email?.id === ids.m1team)!.email!;
    expect(m1.copies.map((c) => c.id).sort()).to.deep.equal([ids.m1bob, ids.m1team].sort());
    expect(m1).to.include({ emailAccountId: t.teamBox.id, subject: 'Dopyt', direction: 'inbound' });
    expect(items.find((i) => i.email?.id === ids.m3team)!.email!.direction).to.equal('outbound');
    expect(items.find((i) => i.email?.id === ids.m6team)!.email!.copies).to.have.length(2);
    // at: a done task at completion, an open one at its due time, an email at its date.
    const open = items.find((i) => i.task?.id === ids.open)!;
    expect(open.at).to.equal(ago(7, 12).toISOString());
    expect(items.find((i) => i.email?.id === ids.m4bob)!.at).to.equal(ago(6).toISOString());
  });

  it('shows each reader only their mailboxes, their tasks and their follow-ups', async () => {
    expect((await timeline(t.bob, `/api/people/${lubo}/timeline`)).map(key)).to.deep.equal([
      `task:${ids.bobsPrivate}`,
      `email:${ids.m6bob}`,
      `email:${ids.m4bob}`,
      `email:${ids.m1bob}`,
    ]);
    const bobsM1 = (await timeline(t.bob, `/api/people/${lubo}/timeline`)).find((i) => i.email?.id === ids.m1bob)!;
    expect(bobsM1.email!.copies).to.deep.equal([{ id: ids.m1bob, emailAccountId: t.bobBox.id }]);
    expect((await timeline(t.alice, `/api/people/${lubo}/timeline`)).map(key)).to.deep.equal([`email:${ids.m2alice}`]);
    // The viewer of the team mailbox: its mail, no task or follow-up of carol's.
    expect((await timeline(t.viewer, `/api/people/${lubo}/timeline`)).map(key)).to.deep.equal([
      `email:${ids.m6team}`,
      `email:${ids.m5team}`,
      `email:${ids.m3team}`,
      `email:${ids.m1team}`,
    ]);
  });

  it('pages by cursor and by page number alike: every item once, in order', async () => {
    const whole = (await timeline(t.carol, `/api/people/${lubo}/timeline`)).map(key);
    const byCursor: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const res = await t.carol.get(`/api/people/${lubo}/timeline?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      byCursor.push(...(res.body.data.items as Item[]).map(key));
      cursor = res.body.data.pagination.nextCursor as string | null;
      expect(res.body.data.pagination.hasNext).to.equal(cursor !== null);
      if (!cursor) break;
    }
    expect(byCursor).to.deep.equal(whole);
    const byPage: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await t.carol.get(`/api/people/${lubo}/timeline?limit=3&page=${page}`);
      byPage.push(...(res.body.data.items as Item[]).map(key));
      if (page === 3) expect(res.body.data.pagination).to.include({ total: whole.length, totalExact: true, hasNext: false, nextCursor: null });
    }
    expect(byPage).to.deep.equal(whole);
  });

  it('pages right where most candidates are second copies of one message (the candidates widen)', async () => {
    const ADDRESS = `kopie-${run}@acme-kopie-${run}.sk`;
    for (let i = 0; i < 9; i++) {
      const messageId = `<kopia-${i}-${run}@acme.test>`;
      // Each message in both of carol's mailboxes, the bob copy a minute newer for every third.
      await mail(t.teamBox, ADDRESS, { messageId, date: ago(3, 8, i * 2) });
      await mail(t.bobBox, ADDRESS, { messageId, date: ago(3, 8, i * 2 + (i % 3 === 0 ? 1 : 0)) });
    }
    const person = (await personOf(ADDRESS))!;
    const whole = (await timeline(t.carol, `/api/people/${person}/timeline`)).map(key);
    expect(whole).to.have.length(9);
    for (const limit of [1, 2, 4]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await t.carol.get(`/api/people/${person}/timeline?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.status).to.equal(200);
        seen.push(...(res.body.data.items as Item[]).map(key));
        cursor = res.body.data.pagination.nextCursor as string | null;
      } while (cursor && seen.length < 20);
      expect(seen, `limit ${limit}`).to.deep.equal(whole);
      const paged: string[] = [];
      for (let page = 1; paged.length < whole.length && page < 20; page++) {
        paged.push(...((await t.carol.get(`/api/people/${person}/timeline?limit=${limit}&page=${page}`)).body.data.items as Item[]).map(key));
      }
      expect(paged, `limit ${limit} by page`).to.deep.equal(whole);
    }
  });

  it("answers the company's timeline with its contacts' mail and its people's, and the tasks of both", async () => {
    // Jana writes from a personal address; carol files her person under ACME.
    const JANA = `jana-${run}@posta-${run}.sk`;
    const jana = await mail(t.teamBox, JANA, { name: 'Jana', date: ago(2) });
    const janaPerson = (await personOf(JANA))!;
    expect((await t.carol.patch(`/api/people/${janaPerson}`, { companyId: acme })).status).to.equal(200);
    const companyTask = (await createTask(t.carol, { title: 'Zmluva', dueAt: ago(1).toISOString(), companyId: acme })).id;
    const items = (await timeline(t.carol, `/api/companies/${acme}/timeline`)).map(key);
    expect(items.slice(0, 3)).to.deep.equal([`task:${ids.done}`, `task:${companyTask}`, `email:${jana.emailId}`]);
    expect(items).to.include.members([`email:${ids.m6team}`, `email:${ids.m1team}`, `task:${ids.open}`, `follow_up:${ids.followUp}`]);
    expect(items.filter((k) => k === `email:${ids.m1bob}`)).to.have.length(0);
    // Bob sees the company through his own mail; not carol's tasks, nor Jana (he has no mail with her).
    const bobs = (await timeline(t.bob, `/api/companies/${acme}/timeline`)).map(key);
    expect(bobs).to.deep.equal([`task:${ids.bobsPrivate}`, `email:${ids.m6bob}`, `email:${ids.m4bob}`, `email:${ids.m1bob}`]);
  });

  describe('a company of many contacts, one of them holding most of its mail', () => {
    const BIG = `velka-${run}.sk`;
    const HEAVY = `hlavny@${BIG}`;
    const messageIds = new Map<string, string | null>();
    let company: string;
    let heavy: string;
    /** Hours after a fixed start 30 days ago (the newest items are about 21 hours after it). */
    const at = (hours: number, minutes = 0) => new Date(ago(30).getTime() + hours * 3_600_000 + minutes * 60_000);
    const keep = async (stored: Promise<Mail>, messageId: string | null): Promise<Mail> => {
      const m = await stored;
      messageIds.set(m.emailId, messageId);
      return m;
    };

    before(async function () {
      this.timeout(120_000);
      const ctx = await testContext();
      // 48 messages of one address in the team mailbox, every second also in bob's (a minute newer there for every sixth):
      // far more than a page, newer than most of the other contacts' mail.
      let heavyTeam: Mail | undefined;
      let heavyBob: Mail | undefined;
      for (let i = 0; i < 48; i++) {
        const messageId = `<velka-${i}-${run}@velka.test>`;
        heavyTeam = await keep(mail(t.teamBox, HEAVY, { messageId, date: at(200 - i * 2) }), messageId);
        if (i % 2 === 0) heavyBob = await keep(mail(t.bobBox, HEAVY, { messageId, date: at(200 - i * 2, i % 6 === 0 ? 1 : 0) }), messageId);
      }
      // Then 24 newer ones in the team mailbox alone, an hour apart, when no one else wrote: a first page of them only.
      for (let i = 0; i < 24; i++) {
        const messageId = `<velka-ticho-${i}-${run}@velka.test>`;
        await keep(mail(t.teamBox, HEAVY, { messageId, date: at(300 - i) }), messageId);
      }
      // Eleven more contacts with three messages each in one of the two mailboxes: the first at the very instant of one of
      // the heavy contact's, the others spread older; a few without a Message-ID.
      const others: Mail[] = [];
      for (let j = 1; j <= 11; j++) {
        for (let k = 0; k < 3; k++) {
          const box = (j + k) % 3 === 0 ? t.bobBox : t.teamBox;
          const messageId = k === 2 && j % 4 === 0 ? null : `<velka-${j}-${k}-${run}@velka.test>`;
          others.push(await keep(mail(box, `osoba${j}@${BIG}`, { messageId, date: k === 0 ? at(200 - j * 4) : at(210 - j * 17 - k * 5) }), messageId));
        }
      }
      // Two emails that took in two of the company's contacts each (linked to both, as the sync links a Cc).
      const link = 'INSERT INTO email_contacts (email_id, contact_id) VALUES ($1, $2)';
      await ctx.db.sequelize.query(link, { bind: [others[0].emailId, heavyTeam!.contactId] });
      await ctx.db.sequelize.query(link, { bind: [heavyTeam!.emailId, others[3].contactId] });
      // Mail carol cannot read (alice's mailbox): never in her timeline.
      await keep(mail(t.aliceBox, HEAVY, { messageId: null, date: at(205) }), null);
      // A person filed under the company from a private address.
      const PRIVATE = `sukromna-${run}@posta-${run}.sk`;
      for (let k = 0; k < 4; k++)
        await keep(mail(t.teamBox, PRIVATE, { messageId: `<sukromna-${k}-${run}@posta.test>`, date: at(199 - k * 30) }), `<sukromna-${k}-${run}@posta.test>`);
      const privatePerson = (await personOf(PRIVATE))!;
      company = await companyOfContact(heavyTeam!.contactId);
      heavy = (await personOf(HEAVY))!;
      expect((await t.carol.patch(`/api/people/${privatePerson}`, { companyId: company })).status).to.equal(200);
      // Tasks on the company and its people, two at one instant and one at the instant of an email; one done (at: now).
      for (const [dueAt, link] of [
        [at(150), { companyId: company }],
        [at(150), { companyId: company }],
        [at(106), { companyId: company }],
        [at(190), { personId: heavy }],
        [at(120), { personId: privatePerson }],
      ] as const) {
        await createTask(t.carol, { title: 'Úloha', dueAt: dueAt.toISOString(), ...link });
      }
      const done = await createTask(t.carol, { title: 'Hotová', dueAt: at(100).toISOString(), personId: heavy });
      expect((await t.carol.patch(`/api/tasks/${done.id}`, { status: 'done' })).status).to.equal(200);
      await createTask(t.bob, { title: 'Bobova', dueAt: at(180).toISOString(), companyId: company });
      // Follow-ups: carol's on the heavy contact and on another at the instant of its email; bob's own.
      await ctx.services.followUps.set(t.carol.id, heavyTeam!.contactId, { dueAt: at(170) });
      await ctx.services.followUps.set(t.carol.id, others[0].contactId, { dueAt: at(196) });
      await ctx.services.followUps.set(t.bob.id, heavyBob!.contactId, { dueAt: at(160) });
    });

    it('gives every item once and in order, page after page by cursor, as the lists of its mail, tasks and follow-ups add up', async () => {
      const carols = { readable: [t.teamBox.id, t.bobBox.id], owned: [t.teamBox.id] };
      const expected = (await expectedTimeline(t.carol, { company }, carols, messageIds)).map((e) => e.key);
      // The heavy contact's messages alone are several pages of every size below, and most are held twice.
      expect(expected.length).to.be.greaterThan(80);
      const path = `/api/companies/${company}/timeline`;
      for (const limit of [1, 3, 7, 12, 16, 25]) expect(await walkByCursor(t.carol, path, limit, 200), `carol, limit ${limit}`).to.deep.equal(expected);
      const byPage: string[] = [];
      for (let page = 1; byPage.length < expected.length && page < 30; page++) {
        const res = await t.carol.get(`${path}?limit=7&page=${page}`);
        expect(res.status).to.equal(200);
        byPage.push(...(res.body.data.items as Item[]).map(key));
      }
      expect(byPage, 'carol by page number').to.deep.equal(expected);
      // Bob reads only his own mailbox: his copies, his task, his follow-up.
      const bobs = await expectedTimeline(t.bob, { company }, { readable: [t.bobBox.id], owned: [t.bobBox.id] }, messageIds);
      expect(bobs.length).to.be.greaterThan(20);
      expect(await walkByCursor(t.bob, path, 4, 100), 'bob, limit 4').to.deep.equal(bobs.map((e) => e.key));
    });

    it("pages the heavy contact's person the same way", async () => {
      const expected = await expectedTimeline(t.carol, { person: heavy }, { readable: [t.teamBox.id, t.bobBox.id], owned: [t.teamBox.id] }, messageIds);
      expect(expected.length).to.be.greaterThan(50);
      for (const limit of [2, 9]) {
        expect(await walkByCursor(t.carol, `/api/people/${heavy}/timeline`, limit, 100), `limit ${limit}`).to.deep.equal(expected.map((e) => e.key));
      }
    });
  });

  it('is a 404 for someone who does not see the person or the company, and refuses bad input', async () => {
    for (const who of [t.noRead, t.outsider]) {
      const person = await who.get(`/api/people/${lubo}/timeline`);
      expect(person.status).to.equal(404);
      expect(person.body.error.message).to.equal('Osoba neexistuje');
      const company = await who.get(`/api/companies/${acme}/timeline`);
      expect(company.status).to.equal(404);
      expect(company.body.error.message).to.equal('Firma neexistuje');
    }
    expect((await t.carol.get(`/api/people/${randomUUID()}/timeline`)).status).to.equal(404);
    expect((await t.carol.get('/api/people/nie-uuid/timeline')).status).to.equal(400);
    for (const cursor of [
      'nie-kurzor',
      Buffer.from('["x",0,"y"]').toString('base64url'),
      Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000000Z', 7, randomUUID()])).toString('base64url'),
    ]) {
      const res = await t.carol.get(`/api/people/${lubo}/timeline?cursor=${cursor}`);
      expect(res.status, cursor).to.equal(400);
      expect(res.body.error.message).to.equal('Neplatný kurzor: použite nextCursor z predchádzajúcej strany');
    }
    const first = await t.carol.get(`/api/people/${lubo}/timeline?limit=2`);
    const both = await t.carol.get(`/api/people/${lubo}/timeline?limit=2&page=2&cursor=${first.body.data.pagination.nextCursor as string}`);
    expect(both.status).to.equal(400);
    expect((await t.carol.get(`/api/people/${lubo}/timeline?limit=101`)).status).to.equal(400);
    // Page numbers reach 5,000 items deep; beyond, the cursor does.
    expect((await t.carol.get(`/api/people/${lubo}/timeline?limit=100&page=51`)).status).to.equal(200);
    const deep = await t.carol.get(`/api/people/${lubo}/timeline?limit=100&page=52`);
    expect(deep.status).to.equal(400);
    expect(deep.body.error.details[0].message).to.include('cursor');
    expect((await t.carol.get(`/api/people/${lubo}/timeline?typ=email`)).status).to.equal(400);
    expect((await request(app).get(`/api/people/${lubo}/timeline`)).status).to.equal(401);
  });

  it('gives an API token only the kinds its scopes read elsewhere', async () => {
    const token = async (scopes: string[]) => {
      const res = await t.carol.post('/api/tokens', { name: `timeline ${randomUUID()}`, scopes });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return `Bearer ${res.body.data.token as string}`;
    };
    const types = async (bearer: string, path: string) => {
      const res = await request(app).get(`${path}?limit=100`).set('Authorization', bearer);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return [...new Set((res.body.data.items as Item[]).map((i) => i.type))].sort();
    };
    expect(await types(await token(['people:read']), `/api/people/${lubo}/timeline`)).to.deep.equal([]);
    expect(await types(await token(['people:read', 'emails:read']), `/api/people/${lubo}/timeline`)).to.deep.equal(['email']);
    expect(await types(await token(['people:read', 'tasks:read', 'contacts:read']), `/api/people/${lubo}/timeline`)).to.deep.equal(['follow_up', 'task']);
    expect(await types(await token(['companies:read', 'tasks:write']), `/api/companies/${acme}/timeline`)).to.deep.equal(['task']);
    const refused = await request(app)
      .get(`/api/companies/${acme}/timeline`)
      .set('Authorization', await token(['people:read', 'emails:read']));
    expect(refused.status).to.equal(403);
  });
});
