import { expect } from 'chai';
import { QueryTypes, Sequelize } from 'sequelize';
import { cliJson, freshDatabase } from '../admin/cli-helpers.js';
import { lookAfterMarker } from '../support/absence.js';
import { startServe, type ServeProcess } from '../support/cli.js';
import { randomIp } from '../support/login.js';
import { until } from '../support/poll.js';
import { SseClient, type SseEvent } from '../support/sse-client.js';
import { freshMailUser } from '../sync/helpers.js';

interface Answer {
  status: number;
  // The envelope's fields are read directly.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/**
 * Two `serve` processes on one database, each running the due checks every second
 * (FOLLOW_UP_CHECK_SECONDS=1): a task that comes due is claimed by one of them and its assignee's
 * streams on BOTH instances get exactly one task.due; a task done before its time gets none. A
 * database of its own: the checks of these two processes must meet only this test's tasks.
 */
describe('tasks: task.due with two instances', function () {
  this.timeout(120_000);
  let env: Record<string, string>;
  let drop: (() => Promise<void>) | undefined;
  let db: Sequelize | undefined;
  const servers: ServeProcess[] = [];
  const streams: SseClient[] = [];

  before(async () => {
    const fresh = await freshDatabase('crm_tasks_instances');
    drop = fresh.drop;
    env = { ...fresh.env, FOLLOW_UP_CHECK_SECONDS: '1', LOG_LEVEL: 'info', TRUST_PROXY: '1' };
    db = new Sequelize(env.DATABASE_URL, { logging: false });
  });

  after(async () => {
    for (const s of streams) s.close();
    const codes: Array<number | null> = [];
    for (const server of servers) {
      if (server.child.exitCode === null) server.child.kill('SIGTERM');
      codes.push(await server.exited);
    }
    await db?.close();
    await drop?.();
    expect(codes.filter((c) => c !== 0)).to.deep.equal([]);
  });

  it('a task that comes due reaches its assignee on both instances exactly once; one done before its time never', async () => {
    const [a, b] = [await startServe(['--no-sync'], env), await startServe(['--no-sync'], env)];
    servers.push(a, b);
    const call = async (url: string, method: string, path: string, body?: unknown, bearer?: string): Promise<Answer> => {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': randomIp(), ...(bearer ? { Authorization: bearer } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: res.status === 204 ? undefined : await res.json() };
    };

    const mail = await freshMailUser('tasks');
    const username = `tasks${Date.now()}`;
    const created = await cliJson(['users', 'create', '--username', username, '--email', mail.user, '--email-password-stdin'], mail.pass, env);
    const login = await call(a.url, 'POST', '/api/auth/login', { username, password: created.temporaryPassword });
    expect(login.status, JSON.stringify(login.body)).to.equal(200);
    const bearer = `Bearer ${login.body.data.tokens.accessToken as string}`;
    expect((await call(a.url, 'POST', '/api/auth/set-password', { newPassword: 'Tasks-Two-Instances-2026' }, bearer)).status).to.equal(200);
    const task = async (url: string, title: string, dueAt: Date) => {
      const res = await call(url, 'POST', '/api/tasks', { title, dueAt: dueAt.toISOString() }, bearer);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body.data.task as { id: string; dueAt: string };
    };

    for (const server of [a, b]) {
      const s = await SseClient.open(`${server.url}/api/events`, { Authorization: bearer });
      expect(s.status).to.equal(200);
      streams.push(s);
    }
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
    const rows = await db!.query<{ task: string; n: number }>(`SELECT payload->>'taskId' AS task, count(*)::int AS n FROM events WHERE type = 'task.due' GROUP BY 1`, {
      type: QueryTypes.SELECT,
    });
    expect(Object.fromEntries(rows.map((r) => [r.task, r.n])))
      .to.include({ [first.id]: 1 })
      .and.not.have.property(early.id);
  });
});
