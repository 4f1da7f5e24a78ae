/**
 * A `crm-admin serve` child on a database of the test's choosing (through a PgBouncer, a proxy), with
 * a user created by the CLI on the same path and logged in over HTTP: what the database-connection
 * tests drive. The harness's in-process app cannot do this: its models are bound to the suite's pool.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { runCli, startServe, type ServeProcess } from '../support/cli.js';
import { baseTestEnv } from '../support/harness.js';
import { randomIp } from '../support/login.js';

export interface Served {
  serve: ServeProcess;
  env: Record<string, string>;
  bearer: string;
  /** The email account made with the user, when `mail` was given. */
  accountId?: string;
  get(pathname: string): Promise<Response>;
  send(method: string, pathname: string, body: unknown): Promise<Response>;
  stop(): Promise<number | null>;
}

/** The suite's environment for a child, on `databaseUrl`, without NODE_ENV (as on a server). */
export function childEnvOn(databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  const { NODE_ENV: _test, ...base } = baseTestEnv();
  const dataDir = path.join('/tmp', `crm-served-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`);
  fs.mkdirSync(dataDir, { recursive: true });
  return { ...base, DATABASE_URL: databaseUrl, CRM_DATA_DIR: dataDir, TRUST_PROXY: '1', ...extra };
}

export async function serveWithUser(env: Record<string, string>, options: { mail?: { user: string; pass: string }; args?: string[] } = {}): Promise<Served> {
  const serve = await startServe(options.args ?? ['--no-sync'], { ...env, LOG_LEVEL: 'info' });
  try {
    return await withUser(serve, env, options.mail);
  } catch (err) {
    // Nobody else holds the child when the set-up fails: do not leave it running.
    serve.child.kill('SIGKILL');
    await serve.exited;
    throw err;
  }
}

async function withUser(serve: ServeProcess, env: Record<string, string>, mail?: { user: string; pass: string }): Promise<Served> {
  const username = `dbnet${Date.now()}${Math.floor(Math.random() * 1000)}`;
  const mailArgs = mail ? ['--email', mail.user, '--email-password-stdin'] : ['--role', 'admin'];
  const created = await runCli(['users', 'create', '--username', username, ...mailArgs, '--json'], env, mail?.pass);
  expect(created.status, created.stderr).to.equal(0);
  const made = JSON.parse(created.stdout) as { temporaryPassword: string; emailAccount?: { id: string } };
  const headers = { 'Content-Type': 'application/json', 'X-Forwarded-For': randomIp() };
  const login = await fetch(`${serve.url}/api/auth/login`, { method: 'POST', headers, body: JSON.stringify({ username, password: made.temporaryPassword }) });
  const loginBody = (await login.json()) as { data: { tokens: { accessToken: string } } };
  expect(login.status, `${JSON.stringify(loginBody)}\n${serve.output().split('\n').slice(-15).join('\n')}`).to.equal(200);
  const bearer = `Bearer ${loginBody.data.tokens.accessToken}`;
  const authed = { ...headers, Authorization: bearer };
  const set = await fetch(`${serve.url}/api/auth/set-password`, { method: 'POST', headers: authed, body: JSON.stringify({ newPassword: 'Db-Connections-Own-2026' }) });
  expect(set.status, await set.text()).to.equal(200);
  return {
    serve,
    env,
    bearer,
    accountId: made.emailAccount?.id,
    get: (pathname) => fetch(`${serve.url}${pathname}`, { headers: authed, signal: AbortSignal.timeout(20_000) }),
    send: (method, pathname, body) => fetch(`${serve.url}${pathname}`, { method, headers: authed, body: JSON.stringify(body), signal: AbortSignal.timeout(20_000) }),
    stop: async () => {
      if (serve.child.exitCode === null) serve.child.kill('SIGTERM');
      const code = await serve.exited;
      fs.rmSync(env.CRM_DATA_DIR, { recursive: true, force: true });
      return code;
    },
  };
}
