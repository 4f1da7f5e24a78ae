import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import type { SseEvent } from '../support/sse-client.js';
import { call, twoInstances } from '../support/two-instances.js';

/**
 * Two `serve` processes on one database, each running the due check every second: a follow-up that
 * comes due is claimed by one of them and its owner's streams on BOTH instances get exactly one
 * follow_up.due (test/support/two-instances.ts).
 */
describe('follow-ups: follow_up.due with two instances', function () {
  this.timeout(120_000);
  const instances = twoInstances('crm_follow_ups_instances');
  const { streams } = instances;

  it('a follow-up that comes due reaches the owner on both instances exactly once', async () => {
    const { bearer, accountId } = await instances.start('followups');
    const [a, b] = instances.servers;
    const contact = async (email: string) => {
      const res = await call(a.url, 'POST', '/api/contacts', { emailAccountId: accountId, email }, bearer);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body.data.contact.id as string;
    };
    const [first, marker] = [await contact('prvy@clients.example'), await contact('marker@clients.example')];

    const dueOf = (contactId: string) => (e: SseEvent) => e.event === 'follow_up.due' && e.data.contactId === contactId;

    const set = await call(b.url, 'PUT', `/api/contacts/${first}/follow-up`, { dueAt: new Date(Date.now() - 60_000).toISOString(), note: 'Ozvať sa' }, bearer);
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    const ids = [];
    for (const s of streams) ids.push((await s.waitFor(dueOf(first), 30_000, 'follow_up.due')).id);
    expect(ids[0]).to.equal(ids[1]);

    // The marker comes due after several more checks of both instances; whatever a second claim of
    // the first follow-up would have sent, it would have come before it.
    expect((await call(a.url, 'PUT', `/api/contacts/${marker}/follow-up`, { dueAt: new Date().toISOString() }, bearer)).status).to.equal(200);
    for (const s of streams) {
      await s.waitFor(dueOf(marker), 30_000, 'the marker follow_up.due');
      expect(s.events.filter(dueOf(first))).to.have.length(1);
    }
    const [row] = await instances.db().query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE type = 'follow_up.due' AND payload->>'contactId' = $1`, {
      bind: [first],
      type: QueryTypes.SELECT,
    });
    expect(row.n).to.equal(1);

    const due = await call(a.url, 'GET', '/api/follow-ups?status=due', undefined, bearer);
    expect(due.body.data.items.map((i: { contactId: string }) => i.contactId)).to.have.members([first, marker]);
  });
});
