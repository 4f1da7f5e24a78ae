import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { Sql } from '../../src/db/sql.js';
import { sequelizeTransactions } from '../../src/db/transactions.js';
import { TaskDueJob } from '../../src/tasks/task-due-job.js';
import { TaskRepository } from '../../src/tasks/task-repository.js';
import { lookAfterMarker } from '../support/absence.js';
import { sessionFor } from '../support/auth.js';
import { createUser } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { until } from '../support/poll.js';
import { SseClient, type SseEvent } from '../support/sse-client.js';
import { startReceiver } from '../webhooks/helpers.js';
import { count, createTask, inMinutes, mail, personOf, team, type Member, type Team } from './support.js';

/** The app may call the loopback webhook receiver. */
const ALLOW = { WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '0,0' };

/**
 * The tasks' due check: a task whose time came is claimed once and announced to its assignee's live
 * stream (task.due, through the events outbox) and to the webhooks that want it; a task done before
 * its time is not. The job is run directly (as serve's scheduler does every FOLLOW_UP_CHECK_SECONDS),
 * as two "instances": two jobs with their own repositories. test/tasks/task-instances.test.ts does
 * the same with two serve processes.
 */
describe('tasks: the due check, task.due and task.assigned', function () {
  this.timeout(60_000);
  const run = randomBytes(4).toString('hex');
  let app: Express;
  let ctx: AppContext;
  let server: http.Server;
  let base: string;
  let t: Team;
  let lubo: string;
  const open: SseClient[] = [];
  const job = () => new TaskDueJob(new TaskRepository(new Sql(ctx.db.sequelize)), sequelizeTransactions(ctx.db.sequelize));
  const dueEvents = (taskId: string) => count("events WHERE type = 'task.due' AND payload->>'taskId' = $1", [taskId]);
  const dueOf = (taskId: string) => (e: SseEvent) => e.event === 'task.due' && e.data.taskId === taskId;

  const stream = async (who: Member) => {
    const client = await SseClient.open(`${base}/api/events`, { Authorization: (await sessionFor(who.fixture)).bearer });
    expect(client.status).to.equal(200);
    open.push(client);
    return client;
  };

  before(async () => {
    app = await testApp(ALLOW);
    ctx = await testContext(ALLOW);
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await team(app, run);
    await mail(t.aliceBox, `lubo@acme-${run}.sk`);
    await mail(t.bobBox, `lubo@acme-${run}.sk`);
    lubo = (await personOf(`lubo@acme-${run}.sk`))!;
  });

  afterEach(() => {
    for (const client of open.splice(0)) client.close();
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('a due task reaches its assignee once (two jobs at once), not its creator, with the link ids', async () => {
    const [bobs, alices] = [await stream(t.bob), await stream(t.alice)];
    const task = await createTask(t.alice, { title: 'Zavolať', dueAt: inMinutes(-1), personId: lubo, assigneeId: t.bob.id });
    const assigned = await bobs.waitFor((e) => e.event === 'task.assigned' && e.data.taskId === task.id, 15_000, 'task.assigned');
    expect(assigned.data).to.deep.equal({ taskId: task.id, assigneeId: t.bob.id, assignedBy: t.alice.id, dueAt: task.dueAt });
    for (let round = 0; round < 3; round++) await Promise.all([job().run(), job().run()]);
    const event = await bobs.waitFor(dueOf(task.id), 15_000, 'task.due');
    expect(event.data).to.deep.equal({ taskId: task.id, assigneeId: t.bob.id, dueAt: task.dueAt, personId: lubo, companyId: null, conversationId: null, emailAccountId: null });
    expect(await dueEvents(task.id)).to.equal(1);

    // Markers down the same path: each user's own task, announced by a later check, comes after whatever a second claim would have sent.
    const markers = [await createTask(t.alice, { title: 'Značka', dueAt: inMinutes(-1) }), await createTask(t.bob, { title: 'Značka', dueAt: inMinutes(-1) })];
    await Promise.all([job().run(), job().run()]);
    await alices.waitFor(dueOf(markers[0].id), 15_000, "alice's marker");
    await bobs.waitFor(dueOf(markers[1].id), 15_000, "bob's marker");
    expect(alices.events.filter(dueOf(task.id))).to.have.length(0);
    expect(alices.events.filter((e) => e.event === 'task.assigned')).to.have.length(0);
    expect(bobs.events.filter(dueOf(task.id))).to.have.length(1);
    expect((await t.bob.get(`/api/tasks/${task.id}`)).body.data.task.notifiedAt).to.be.a('string');
  });

  it('a task done before its time is not announced (marker), nor one reopened after it was announced', async () => {
    const bobs = await stream(t.bob);
    const task = await createTask(t.bob, { title: 'Hotová skôr', dueAt: new Date(Date.now() + 1500).toISOString() });
    expect((await t.bob.patch(`/api/tasks/${task.id}`, { status: 'done' })).status).to.equal(200);
    await until(() => Date.now() > Date.parse(task.dueAt) + 100, { what: 'its due time to pass' });
    const seen = await lookAfterMarker({
      what: "bob's marker task.due",
      sendMarker: async () => {
        const marker = await createTask(t.bob, { title: 'Značka', dueAt: inMinutes(-1) });
        await Promise.all([job().run(), job().run()]);
        return marker;
      },
      markerSeen: async () => bobs.events.some((e) => e.event === 'task.due' && e.data.taskId !== task.id),
      look: async () => ({ stream: bobs.events.filter(dueOf(task.id)).length, outbox: await dueEvents(task.id) }),
    });
    expect(seen).to.deep.equal({ stream: 0, outbox: 0 });
    // Reopened after its time: open and due, so the next check announces it once.
    expect((await t.bob.patch(`/api/tasks/${task.id}`, { status: 'open' })).status).to.equal(200);
    await job().run();
    await job().run();
    expect(await dueEvents(task.id)).to.equal(1);
    // Done and reopened again: already announced, not again; a new dueAt is a new reminder.
    await t.bob.patch(`/api/tasks/${task.id}`, { status: 'done' }).expect(200);
    await t.bob.patch(`/api/tasks/${task.id}`, { status: 'open' }).expect(200);
    await job().run();
    expect(await dueEvents(task.id)).to.equal(1);
    await t.bob.patch(`/api/tasks/${task.id}`, { dueAt: inMinutes(-2) }).expect(200);
    await job().run();
    expect(await dueEvents(task.id)).to.equal(2);
  });

  it('a check that meets a task another check holds skips it: one claim, one event', async () => {
    const task = await createTask(t.carol, { title: 'Držaná', dueAt: inMinutes(-1) });
    const repository = new TaskRepository(new Sql(ctx.db.sequelize));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let claimedFirst = 0;
    const first = sequelizeTransactions(ctx.db.sequelize).run(async (tx) => {
      claimedFirst = (await repository.claimDue(500, tx)).claimed;
      await gate;
    });
    await until(() => claimedFirst > 0, { what: 'the first claim' });
    // Returns while the first still holds the row (a check that waited for the lock would never get here: the gate opens after it).
    await job().run();
    release();
    await first;
    await job().run();
    expect(await dueEvents(task.id)).to.equal(1);
  });

  it('a change to done that holds the row makes a concurrent check skip it; committed, the task is never announced', async () => {
    const task = await createTask(t.carol, { title: 'Súbeh', dueAt: inMinutes(-1) });
    const lock = sequelizeTransactions(ctx.db.sequelize);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let locked = false;
    const holder = lock.run(async (tx) => {
      await ctx.db.sequelize.query("UPDATE tasks SET status = 'done', completed_at = now() WHERE id = $1", { bind: [task.id], transaction: tx });
      locked = true;
      await gate;
    });
    await until(() => locked, { what: 'the row held' });
    await job().run();
    release();
    await holder;
    await job().run();
    expect(await dueEvents(task.id)).to.equal(0);
  });

  it('feeds task.due to a webhook that wants it, delivered with its ids', async () => {
    const receiver = await startReceiver();
    const admin = (await sessionFor(await createUser({ role: 'admin' }))).bearer;
    const created = await request(app)
      .post('/api/admin/webhooks')
      .set('Authorization', admin)
      .send({ url: receiver.url, events: ['task.due'] });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    try {
      const task = await createTask(t.alice, { title: 'Pre webhook', dueAt: inMinutes(-1), personId: lubo, assigneeId: t.bob.id });
      await job().run();
      const got = await until(
        async () => {
          await ctx.services.webhookDelivery.run();
          return receiver.got.find((r) => (r.json.data as unknown as { taskId?: string }).taskId === task.id);
        },
        { what: 'the task.due delivery', timeoutMs: 20_000, intervalMs: 100 },
      );
      expect(got.json.type).to.equal('task.due');
      expect(got.json.data).to.deep.include({ taskId: task.id, assigneeId: t.bob.id, personId: lubo });
      expect(receiver.got.filter((r) => r.json.type !== 'task.due')).to.have.length(0);
    } finally {
      await request(app)
        .delete(`/api/admin/webhooks/${created.body.data.webhook.id as string}`)
        .set('Authorization', admin);
      await receiver.close();
    }
  });
});
