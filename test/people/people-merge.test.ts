import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import { AuditActions } from '../../src/audit/audit-service.js';
import { AuditLog } from '../../src/models/index.js';
import { testApp, testContext } from '../support/harness.js';
import { until } from '../support/poll.js';
import { peopleOf, personOf, receive, team, type PersonView, type Team } from './support.js';

const day = (n: number) => new Date(Date.UTC(2026, 10, n, 9, 0, 0));

/** POST /api/people/:id/merge (issue 46): one person with every address, the sources gone, nothing lost. */
describe('people: merge', function () {
  this.timeout(90_000);
  const run = randomBytes(4).toString('hex');
  let app: Express;
  let t: Team;

  before(async () => {
    app = await testApp();
    t = await team(app, run);
  });

  /** A person with mail in the team mailbox at a fresh address; answers their id. */
  async function teamPerson(local: string, date = day(3)): Promise<{ id: string; address: string }> {
    const address = `${local}-${randomBytes(3).toString('hex')}@firma-${run}.sk`;
    await receive(t.teamBox, address, { date });
    return { id: (await personOf(address))!, address };
  }

  it('gives the target every address and keeps every field; the source answers 404', async () => {
    const work = await teamPerson('lubo', day(4));
    const home = `lubo.sebo.${run}@gmail.com`;
    await receive(t.teamBox, home, { name: 'Ľubo Šebo', date: day(6) });
    // Bob knows the private address only, from his own mailbox.
    await receive(t.bobBox, home, { date: day(1) });
    const homeId = (await personOf(home))!;
    expect((await t.carol.patch(`/api/people/${work.id}`, { phone: '+421 2 1234 5678', tags: ['zákazník'], notes: 'Firemné' })).status).to.equal(200);
    expect((await t.carol.patch(`/api/people/${homeId}`, { title: 'Konateľ', tags: ['Zákazník', 'VIP'], notes: 'Súkromné' })).status).to.equal(200);

    const merged = await t.editor.post(`/api/people/${work.id}/merge`, { sourceIds: [homeId] });
    expect(merged.status, JSON.stringify(merged.body)).to.equal(200);
    const person = merged.body.data.person as PersonView;
    expect(person.emails).to.deep.equal([home, work.address]);
    expect(person).to.include({ phone: '+421 2 1234 5678', title: 'Konateľ', notes: 'Firemné\n\nSúkromné', lastEmailAt: day(6).toISOString() });
    expect(person.tags).to.deep.equal(['zákazník', 'VIP']);
    expect((await t.carol.get(`/api/people/${homeId}`)).status).to.equal(404);
    expect((await peopleOf(t.carol)).map((p) => p.id))
      .to.include(work.id)
      .and.not.include(homeId);
    expect((await t.carol.patch(`/api/people/${homeId}`, { notes: 'x' })).status).to.equal(404);
    // Bob now sees the merged person through his one address, and only that address.
    const bobs = (await t.bob.get(`/api/people/${work.id}`)).body.data.person as PersonView;
    expect(bobs.emails).to.deep.equal([home]);
    expect(bobs.emailAccountIds).to.deep.equal([t.bobBox.id]);
    // The mail of both addresses under the one person.
    const mail = await t.carol.get(`/api/emails?personId=${work.id}`);
    expect(mail.body.data.items).to.have.length(2);
    const audit = await AuditLog.findOne({ where: { action: AuditActions.personMerged, userId: t.editor.id }, order: [['id', 'DESC']] });
    expect(audit?.details).to.deep.equal({ personId: work.id, sourceIds: [homeId], addresses: 1 });
  });

  it('refuses a viewer (403), and a person the caller does not see (404), changing nothing', async () => {
    const [a, b] = [await teamPerson('viewer-a'), await teamPerson('viewer-b')];
    const bobOnly = `bob-only-${run}@inde-${run}.sk`;
    await receive(t.bobBox, bobOnly);
    const hidden = (await personOf(bobOnly))!;
    expect((await t.viewer.post(`/api/people/${a.id}/merge`, { sourceIds: [b.id] })).status).to.equal(403);
    for (const who of [t.noRead, t.outsider]) expect((await who.post(`/api/people/${a.id}/merge`, { sourceIds: [b.id] })).status).to.equal(404);
    // A source only bob sees: carol gets the same 404 as for an unknown id.
    const unseen = await t.carol.post(`/api/people/${a.id}/merge`, { sourceIds: [b.id, hidden] });
    const unknown = await t.carol.post(`/api/people/${a.id}/merge`, { sourceIds: [b.id, crypto.randomUUID()] });
    expect([unseen.status, unknown.status]).to.deep.equal([404, 404]);
    expect(unseen.body.error).to.deep.equal(unknown.body.error);
    for (const p of [a, b]) expect((await t.carol.get(`/api/people/${p.id}`)).body.data.person.emails).to.deep.equal([p.address]);
    expect(await personOf(bobOnly)).to.equal(hidden);
  });

  it('answers bad input with a 400 in the envelope', async () => {
    const a = await teamPerson('bad');
    for (const body of [
      {},
      { sourceIds: [] },
      { sourceIds: [a.id] },
      { sourceIds: 'x' },
      { sourceIds: ['nie-uuid'] },
      { sourceIds: Array.from({ length: 51 }, () => crypto.randomUUID()) },
      { sourceIds: [crypto.randomUUID(), crypto.randomUUID()].flatMap((id) => [id, id]) },
      { sourceIds: [crypto.randomUUID()], notes: 'x' },
    ]) {
      const res = await t.carol.post(`/api/people/${a.id}/merge`, body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).to.equal(400);
      expect(res.body.success).to.equal(false);
    }
  });

  it('loses no address when two merges of the same person run at once: the second waits, then finds its source gone', async () => {
    const [a, b, c] = [await teamPerson('race-a'), await teamPerson('race-b'), await teamPerson('race-c')];
    const ctx = await testContext();
    // Hold b as a merge locks it (its address rows first, migration 0083), so that both merges are sure
    // to meet at its lock: a <- b and c <- b.
    const holding = await ctx.db.sequelize.transaction();
    let answers: Array<{ status: number }> = [];
    try {
      await ctx.db.sequelize.query('SELECT 1 FROM person_emails WHERE person_id = $1 FOR UPDATE', { bind: [b.id], transaction: holding });
      const pending = Promise.all([t.carol.post(`/api/people/${a.id}/merge`, { sourceIds: [b.id] }), t.editor.post(`/api/people/${c.id}/merge`, { sourceIds: [b.id] })]);
      await until(
        async () => {
          const [row] = await ctx.db.sequelize.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'SELECT 1 FROM person_emails WHERE person_id = ANY%'",
            { type: QueryTypes.SELECT },
          );
          return row.n === 2;
        },
        { what: 'both merges to wait on the held person', timeoutMs: 20_000 },
      );
      await holding.commit();
      answers = await pending;
    } finally {
      if (!(holding as unknown as { finished?: string }).finished) await holding.rollback();
    }
    expect(answers.map((r) => r.status).sort()).to.deep.equal([200, 404]);
    const owners = await Promise.all([a, b, c].map((p) => personOf(p.address)));
    // b's address went to exactly one of them; nobody lost one, and b is gone.
    expect(owners[0]).to.equal(a.id);
    expect(owners[2]).to.equal(c.id);
    expect([a.id, c.id]).to.include(owners[1]);
    expect((await t.carol.get(`/api/people/${b.id}`)).status).to.equal(404);
    const emails = [...(await t.carol.get(`/api/people/${a.id}`)).body.data.person.emails, ...(await t.carol.get(`/api/people/${c.id}`)).body.data.person.emails];
    expect(emails.sort()).to.deep.equal([a.address, b.address, c.address].sort());
  });

  it('merges chains at once without a deadlock or a lost address (a <- b and b <- c together)', async () => {
    const [a, b, c] = [await teamPerson('chain-a'), await teamPerson('chain-b'), await teamPerson('chain-c')];
    const answers = await Promise.all([t.carol.post(`/api/people/${a.id}/merge`, { sourceIds: [b.id] }), t.editor.post(`/api/people/${b.id}/merge`, { sourceIds: [c.id] })]);
    // Either order is a valid history: b into a first (then b <- c finds b gone: 404), or c into b, then b into a.
    expect(answers.map((r) => r.status)).to.satisfy((s: number[]) => s[0] === 200 && (s[1] === 200 || s[1] === 404));
    const owners = new Set(await Promise.all([a, b, c].map((p) => personOf(p.address))));
    expect([...owners].every((id) => id !== undefined)).to.equal(true);
    const seen = await Promise.all([...owners].map(async (id) => (await t.carol.get(`/api/people/${id}`)).body.data.person.emails as string[]));
    expect(seen.flat().sort()).to.deep.equal([a.address, b.address, c.address].sort());
  });
});
