import { expect } from 'chai';
import { cliJson, freshDatabase } from '../admin/cli-helpers.js';
import { startServe, type ServeProcess } from '../support/cli.js';
import { randomIp } from '../support/login.js';
import { until } from '../support/poll.js';
import { freshMailUser } from '../sync/helpers.js';
import { startReceiver, verifies } from './helpers.js';

interface Answer {
  status: number;
  // The envelope's fields are read directly.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/**
 * End to end through two real `serve` processes on one database of their own: their scheduled
 * delivery jobs (every second) send each committed event to the receiver once, signed, though both
 * instances run the job.
 */
describe('webhooks: two serve instances deliver each event once', function () {
  this.timeout(120_000);
  let drop: (() => Promise<void>) | undefined;
  const servers: ServeProcess[] = [];

  after(async () => {
    const codes: Array<number | null> = [];
    for (const server of servers) {
      if (server.child.exitCode === null) server.child.kill('SIGTERM');
      codes.push(await server.exited);
    }
    await drop?.();
    expect(codes.filter((c) => c !== 0)).to.deep.equal([]);
  });

  it('contacts created on instance A reach the receiver once each, whichever instance sends', async () => {
    const fresh = await freshDatabase('crm_webhooks_serve');
    drop = fresh.drop;
    const env = { ...fresh.env, WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', LOG_LEVEL: 'info', TRUST_PROXY: '1' };
    const receiver = await startReceiver();
    try {
      const [a, b] = [await startServe(['--no-sync'], env), await startServe(['--no-sync'], env)];
      servers.push(a, b);
      const call = async (method: string, path: string, body?: unknown, bearer?: string): Promise<Answer> => {
        const res = await fetch(`${a.url}${path}`, {
          method,
          headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': randomIp(), ...(bearer ? { Authorization: bearer } : {}) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: await res.json() };
      };
      const mail = await freshMailUser('webhooks');
      const username = `hooks${Date.now()}`;
      const created = await cliJson(['users', 'create', '--username', username, '--role', 'admin', '--email', mail.user, '--email-password-stdin'], mail.pass, env);
      const accountId = created.emailAccount.id as string;
      const login = await call('POST', '/api/auth/login', { username, password: created.temporaryPassword });
      expect(login.status, JSON.stringify(login.body)).to.equal(200);
      const bearer = `Bearer ${login.body.data.tokens.accessToken as string}`;
      expect((await call('POST', '/api/auth/set-password', { newPassword: 'Webhooks-Two-Instances-2026' }, bearer)).status).to.equal(200);

      const hook = await call('POST', '/api/admin/webhooks', { url: receiver.url, events: ['contact.created'] }, bearer);
      expect(hook.status, JSON.stringify(hook.body)).to.equal(201);
      const secret = hook.body.data.secret as string;
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await call('POST', '/api/contacts', { emailAccountId: accountId, email: `hook${i}@clients.example` }, bearer);
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        ids.push(res.body.data.contact.id as string);
      }
      await until(() => ids.every((id) => receiver.got.some((r) => r.json.data.ids?.includes(id))), { what: 'every contact delivered', timeoutMs: 30_000, intervalMs: 200 });
      // A later event delivered too shows both jobs kept running after the five.
      const later = await call('POST', '/api/contacts', { emailAccountId: accountId, email: 'later@clients.example' }, bearer);
      await until(() => receiver.got.some((r) => r.json.data.ids?.includes(later.body.data.contact.id as string)), {
        what: 'the later contact delivered',
        timeoutMs: 30_000,
        intervalMs: 200,
      });
      const messageIds = receiver.got.map((r) => r.id);
      expect(new Set(messageIds).size, messageIds.join(' ')).to.equal(messageIds.length);
      expect(receiver.got).to.have.length(6);
      for (const r of receiver.got) expect(verifies(secret, r)).to.equal(true);
    } finally {
      await receiver.close();
    }
  });
});
