import { expect } from 'chai';
import { QueryTypes, Sequelize } from 'sequelize';
import { cliJson, freshDatabase } from '../admin/cli-helpers.js';
import { startServe, type ServeProcess } from '../support/cli.js';
import { randomIp } from '../support/login.js';
import { SseClient, type SseEvent } from '../support/sse-client.js';
import { freshMailUser } from '../sync/helpers.js';

interface Answer {
  status: number;
  // The envelope's fields are read directly.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/**
 * Two `serve` processes on one database, each running the due check every second
 * (FOLLOW_UP_CHECK_SECONDS=1): a follow-up that comes due is claimed by one of them and its owner's
 * streams on BOTH instances get exactly one follow_up.due. A database of its own: the checks of these
 * two processes must meet only this test's follow-ups.
 */
describe('follow-ups: follow_up.due with two instances', function () {
  this.timeout(120_000);
  let env: Record<string, string>;
  let drop: (() => Promise<void>) | undefined;
  let db: Sequelize | undefined;
  const servers: ServeProcess[] = [];
  const streams: SseClient[] = [];

  before(async () => {
    const fresh = await freshDatabase('crm_follow_ups_instances');
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

  it('a follow-up that comes due reaches the owner on both instances exactly once', async () => {
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

    // A user with a mailbox (linked by the CLI), onboarded over HTTP on instance A.
    const mail = await freshMailUser('followups');
    const username = `followups${Date.now()}`;
    const created = await cliJson(['users', 'create', '--username', username, '--email', mail.user, '--email-password-stdin'], mail.pass, env);
    const accountId = created.emailAccount.id as string;
    const login = await call(a.url, 'POST', '/api/auth/login', { username, password: created.temporaryPassword });
    expect(login.status, JSON.stringify(login.body)).to.equal(200);
    const bearer = `Bearer ${login.body.data.tokens.accessToken as string}`;
    expect((await call(a.url, 'POST', '/api/auth/set-password', { newPassword: 'Follow-Ups-Two-Instances-2026' }, bearer)).status).to.equal(200);
    const contact = async (email: string) => {
      const res = await call(a.url, 'POST', '/api/contacts', { emailAccountId: accountId, email }, bearer);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body.data.contact.id as string;
    };
    const [first, marker] = [await contact('prvy@clients.example'), await contact('marker@clients.example')];

    for (const server of [a, b]) {
      const s = await SseClient.open(`${server.url}/api/events`, { Authorization: bearer });
      expect(s.status).to.equal(200);
      streams.push(s);
    }
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
    const [row] = await db!.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE type = 'follow_up.due' AND payload->>'contactId' = $1`, {
      bind: [first],
      type: QueryTypes.SELECT,
    });
    expect(row.n).to.equal(1);

    const due = await call(a.url, 'GET', '/api/follow-ups?status=due', undefined, bearer);
    expect(due.body.data.items.map((i: { contactId: string }) => i.contactId)).to.have.members([first, marker]);
  });
});
