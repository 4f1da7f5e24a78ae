import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { lookAfterMarker } from '../support/absence.js';
import { until } from '../support/poll.js';
import type { SseEvent } from '../support/sse-client.js';
import { call, twoInstances } from '../support/two-instances.js';

/**
 * Two `serve` processes on one database, each running the due checks every second: a task that comes
 * due is claimed by one of them and its assignee's streams on BOTH instances get exactly one task.due;
 * a task done before its time gets none (test/support/two-instances.ts).
 */
describe('tasks: task.due with two instances', function () {
  this.timeout(120_000);
  const instances = twoInstances('crm_tasks_instances');
  const { streams } = instances;

  it('a task that comes due reaches its assignee on both instances exactly once; one done before its time never', async () => {
    const { bearer } = await instances.start('tasks');
    const [a, b] = instances.servers;
    const task = async (url: string, title: string, dueAt: Date) => {
      const res = await call(url, 'POST', '/api/tasks', { title, dueAt: dueAt.toISOString() }, bearer);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body.data.task as { id: string; dueAt: string };
    };

    const dueOf = (taskId: string) => (e: SseEvent) => e.event === 'task.due' && e.data.taskId === taskId;

    const first = await task(b.url, 'Zavolať', new Date(Date.now() - 60_000));
    const early = await task(a.url, 'Hotová skôr', new Date(Date.now() + 2_000));
    expect((await call(b.url, 'PATCH', `/api/tasks/${early.id}`, { status: 'done' }, bearer)).status).to.equal(200);
    const ids = [];
    for (const s of streams) ids.push((await s.waitFor(dueOf(first.id), 30_000, 'task.due')).id);
    expect(ids[0]).to.equal(ids[1]);
    await until(() => Date.now() > Date.parse(early.dueAt) + 1_500, { what: 'the early task to pass its time and a check after it', timeoutMs: 10_000 });

    // The marker comes due after several more checks of both instances: whatever a second claim of
    // the first task, or a claim of the done one, would have sent came before it.
    const seen = await lookAfterMarker({
      what: 'the marker task.due on both instances',
      sendMarker: () => task(a.url, 'Značka', new Date()),
      markerSeen: async () => streams.every((s) => s.events.filter((e) => e.event === 'task.due').length >= 2),
      look: async () => streams.map((s) => ({ first: s.events.filter(dueOf(first.id)).length, early: s.events.filter(dueOf(early.id)).length })),
    });
    expect(seen).to.deep.equal([
      { first: 1, early: 0 },
      { first: 1, early: 0 },
    ]);
    const rows = await instances.db().query<{ task: string; n: number }>(`SELECT payload->>'taskId' AS task, count(*)::int AS n FROM events WHERE type = 'task.due' GROUP BY 1`, {
      type: QueryTypes.SELECT,
    });
    expect(Object.fromEntries(rows.map((r) => [r.task, r.n])))
      .to.include({ [first.id]: 1 })
      .and.not.have.property(early.id);
  });
});
