import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { cliJson, freshDatabase } from '../admin/cli-helpers.js';
import { childEnv, crmAdmin, startServe, type ServeProcess } from '../support/cli.js';
import { randomIp } from '../support/login.js';
import { SseClient } from '../support/sse-client.js';
import { freshMailUser, put } from '../sync/helpers.js';

/** `crm-admin serve --no-api`: a sync worker, ready once it logs its start. */
function startWorker(env: Record<string, string>): Promise<{ stop: () => Promise<number | null> }> {
  const child = spawn(crmAdmin, ['serve', '--no-api'], { env: { ...childEnv(), PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('"crm-admin serve started"')) resolve({ stop: () => (child.kill('SIGTERM'), exited) });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => reject(new Error(`worker exited with ${code}:\n${out}`)));
  });
}

async function json(res: Response): Promise<{ status: number; body: { data: { tokens: { accessToken: string } } } }> {
  return { status: res.status, body: (await res.json()) as { data: { tokens: { accessToken: string } } } };
}

/**
 * The deployment of docs/architecture.md: an API instance (`serve --no-sync`) and a sync worker
 * (`serve --no-api`) sharing only PostgreSQL. Mail the worker stores reaches a stream on the API
 * instance; stopping the API instance ends its streams and it still exits cleanly. A database of its
 * own, so that the worker syncs this test's account only.
 */
describe('live updates across processes', function () {
  this.timeout(120_000);
  let env: Record<string, string>;
  let drop: (() => Promise<void>) | undefined;
  let api: ServeProcess | undefined;
  let worker: { stop: () => Promise<number | null> } | undefined;

  before(async () => {
    const fresh = await freshDatabase('crm_events_instances');
    drop = fresh.drop;
    const { SYNC_CRON: _never, ...rest } = fresh.env;
    env = { ...rest, SYNC_INTERVAL: '2s', LOG_LEVEL: 'info', TRUST_PROXY: '1' };
  });

  after(async () => {
    const codes = [await worker?.stop()];
    if (api && api.child.exitCode === null) {
      api.child.kill('SIGTERM');
      codes.push(await api.exited);
    }
    await drop?.();
    expect(codes.filter((c) => c !== undefined && c !== 0)).to.deep.equal([]);
  });

  it('an email.created from a serve --no-api worker reaches a stream on a serve --no-sync instance, which drains on SIGTERM', async () => {
    api = await startServe(['--no-sync'], env);
    const mail = await freshMailUser('events');
    await put(mail, 'INBOX', { from: 'klient@customer.example', to: mail.user, subject: 'Cez workera', body: 'b' });
    const username = `events${Date.now()}`;
    const created = await cliJson(['users', 'create', '--username', username, '--email', mail.user, '--email-password-stdin'], mail.pass, env);
    const accountId = created.emailAccount.id as string;

    // Onboarding over HTTP on the API instance: temporary password, then one of the user's own (same session).
    const headers = { 'Content-Type': 'application/json', 'X-Forwarded-For': randomIp() };
    const login = await json(await fetch(`${api.url}/api/auth/login`, { method: 'POST', headers, body: JSON.stringify({ username, password: created.temporaryPassword }) }));
    expect(login.status, JSON.stringify(login.body)).to.equal(200);
    const bearer = `Bearer ${login.body.data.tokens.accessToken}`;
    const set = await fetch(`${api.url}/api/auth/set-password`, {
      method: 'POST',
      headers: { ...headers, Authorization: bearer },
      body: JSON.stringify({ newPassword: 'Events-Across-Processes-2026' }),
    });
    expect(set.status).to.equal(200);

    const stream = await SseClient.open(`${api.url}/api/events`, { Authorization: bearer });
    expect(stream.status).to.equal(200);
    worker = await startWorker(env);
    const event = await stream.waitFor((e) => e.event === 'email.created' && e.data.emailAccountId === accountId, 30_000, 'email.created from the worker');
    expect(event.data.count).to.equal(1);
    await stream.waitFor((e) => e.event === 'sync.status' && e.data.emailAccountId === accountId && e.data.status === 'ok', 30_000, 'sync.status ok');

    // Shutdown: the open stream is ended by the server (not cut by the drain's deadline) and the process exits 0.
    api.child.kill('SIGTERM');
    await stream.waitClosed(10_000);
    expect(await api.exited).to.equal(0);
  });
});
