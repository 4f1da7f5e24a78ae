import { expect } from 'chai';
import { Sequelize } from 'sequelize';
import { cliJson, freshDatabase } from '../admin/cli-helpers.js';
import { startServe, type ServeProcess } from './cli.js';
import { randomIp } from './login.js';
import { SseClient } from './sse-client.js';
import { freshMailUser } from '../sync/helpers.js';

export interface Answer {
  status: number;
  // The envelope's fields are read directly.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** A JSON request to one instance, from its own client address (no shared login throttle). */
export async function call(url: string, method: string, path: string, body?: unknown, bearer?: string): Promise<Answer> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': randomIp(), ...(bearer ? { Authorization: bearer } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: res.status === 204 ? undefined : await res.json() };
}

export interface TwoInstances {
  /** The two `serve --no-sync` processes (started by start()). */
  servers: ServeProcess[];
  /** One live stream per instance for the onboarded user (opened by start()). */
  streams: SseClient[];
  db(): Sequelize;
  /**
   * Starts both instances, creates a user with a mailbox through the CLI, onboards them over HTTP on
   * the first and opens their live stream on each. Answers their bearer and mailbox id.
   */
  start(prefix: string): Promise<{ bearer: string; accountId: string }>;
}

/**
 * Two `serve` processes on a database of their own (the due checks of these processes must meet only
 * this file's rows), each running the due checks every second (FOLLOW_UP_CHECK_SECONDS=1). Registers
 * its before and after hooks in the calling describe: every instance must exit cleanly.
 */
export function twoInstances(database: string): TwoInstances {
  let env: Record<string, string>;
  let drop: (() => Promise<void>) | undefined;
  let db: Sequelize | undefined;
  const servers: ServeProcess[] = [];
  const streams: SseClient[] = [];

  before(async () => {
    const fresh = await freshDatabase(database);
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

  return {
    servers,
    streams,
    db: () => db!,
    async start(prefix) {
      const [a, b] = [await startServe(['--no-sync'], env), await startServe(['--no-sync'], env)];
      servers.push(a, b);
      const mail = await freshMailUser(prefix);
      const username = `${prefix}${Date.now()}`;
      const created = await cliJson(['users', 'create', '--username', username, '--email', mail.user, '--email-password-stdin'], mail.pass, env);
      const login = await call(a.url, 'POST', '/api/auth/login', { username, password: created.temporaryPassword });
      expect(login.status, JSON.stringify(login.body)).to.equal(200);
      const bearer = `Bearer ${login.body.data.tokens.accessToken as string}`;
      expect((await call(a.url, 'POST', '/api/auth/set-password', { newPassword: 'Two-Instances-Due-2026' }, bearer)).status).to.equal(200);
      for (const server of servers) {
        const s = await SseClient.open(`${server.url}/api/events`, { Authorization: bearer });
        expect(s.status).to.equal(200);
        streams.push(s);
      }
      return { bearer, accountId: created.emailAccount.id as string };
    },
  };
}
