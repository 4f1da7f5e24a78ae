import { expect } from 'chai';
import { cliJson, freshDatabase } from '../admin/cli-helpers.js';
import { startServe, type ServeProcess } from '../support/cli.js';
import { testJmapSessionUrl } from '../support/imap.js';
import { startHoldProxy, type HoldProxy } from '../support/jmap-hold-proxy.js';
import { randomIp } from '../support/login.js';
import { until } from '../support/poll.js';
import { relayDeliveries } from '../support/relay-log.js';
import { uniqueSubject } from '../sending/helpers.js';
import { freshMailUser } from '../sync/helpers.js';

interface Answer {
  status: number;
  // The envelope's fields are read directly.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/**
 * Exactly once across a crash and across instances, with real `crm-admin serve` processes on a
 * database of their own, Cyrus and the test SMTP relay, where each delivery is counted (a message
 * submitted twice shows twice there; Cyrus's mailbox keeps one copy per Message-ID).
 */
describe('scheduled send: exactly once across a kill -9 and across two serve instances', function () {
  this.timeout(240_000);
  let env: Record<string, string>;
  let drop: (() => Promise<void>) | undefined;
  let proxy: HoldProxy | undefined;
  const servers: ServeProcess[] = [];

  before(async () => {
    const fresh = await freshDatabase('crm_scheduled_crash');
    drop = fresh.drop;
    env = { ...fresh.env, LOG_LEVEL: 'info', TRUST_PROXY: '1' };
  });

  after(async () => {
    for (const server of servers) {
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM');
      await server.exited;
    }
    await proxy?.close();
    await drop?.();
  });

  /** A user with a mailbox (linked by the CLI), onboarded over HTTP on `url`; answers a caller of any instance. */
  async function staffMember(url: string) {
    const mail = await freshMailUser('sched');
    const username = `sched${Date.now()}${Math.floor(Math.random() * 1000)}`;
    const created = await cliJson(['users', 'create', '--username', username, '--email', mail.user, '--email-password-stdin'], mail.pass, env);
    const call = async (base: string, method: string, path: string, body?: unknown, bearer?: string): Promise<Answer> => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': randomIp(), ...(bearer ? { Authorization: bearer } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    };
    const login = await call(url, 'POST', '/api/auth/login', { username, password: created.temporaryPassword });
    expect(login.status, JSON.stringify(login.body)).to.equal(200);
    const bearer = `Bearer ${login.body.data.tokens.accessToken as string}`;
    expect((await call(url, 'POST', '/api/auth/set-password', { newPassword: 'Scheduled-Send-Crash-2026' }, bearer)).status).to.equal(200);
    return {
      accountId: created.emailAccount.id as string,
      as: (base: string, method: string, path: string, body?: unknown) => call(base, method, path, body, bearer),
    };
  }

  const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();

  it('a serve killed (-9) after the mail server took the submission and before it recorded it: the next serve records it as sent, one delivery', async () => {
    proxy = await startHoldProxy(testJmapSessionUrl());
    const a = await startServe(['--no-sync'], { ...env, JMAP_SESSION_URL: proxy.sessionUrl });
    servers.push(a);
    const staff = await staffMember(a.url);
    const bob = await freshMailUser('schedbob');
    const subject = uniqueSubject('Crash once');

    proxy.hold('EmailSubmission/set');
    const scheduled = await staff.as(a.url, 'POST', '/api/emails', { emailAccountId: staff.accountId, to: bob.user, subject, text: 'Raz.', sendAt: inSeconds(1) });
    expect(scheduled.status, JSON.stringify(scheduled.body)).to.equal(202);
    const id = scheduled.body.data.scheduled.id as string;
    // Cyrus carried the submission out (the relay delivered it); serve A waits for an answer it never gets.
    await proxy.held();
    await until(() => relayDeliveries(subject).length === 1, { what: 'the relay delivery of the held submission', timeoutMs: 30_000 });
    a.child.kill('SIGKILL');
    await a.exited;

    const b = await startServe(['--no-sync'], env);
    servers.push(b);
    const done = await until(
      async () => {
        const res = await staff.as(b.url, 'GET', '/api/scheduled-emails');
        const row = (res.body.data.items as Array<{ id: string; status: string; sentEmailId: string | null }>).find((s) => s.id === id);
        return row?.status === 'sent' ? row : undefined;
      },
      { what: 'the scheduled email recorded as sent by the next serve', timeoutMs: 120_000, intervalMs: 500 },
    );
    expect(done.status).to.equal('sent');
    // A later scheduled email through the same job: had the first gone again, it would have by now.
    const marker = uniqueSubject('Crash marker');
    const later = await staff.as(b.url, 'POST', '/api/emails', { emailAccountId: staff.accountId, to: bob.user, subject: marker, text: 'm', sendAt: inSeconds(1) });
    expect(later.status).to.equal(202);
    await until(() => relayDeliveries(marker).length === 1, { what: 'the marker delivered', timeoutMs: 60_000 });
    expect(relayDeliveries(subject)).to.have.length(1);
  });

  it('two serve instances send emails scheduled for the same second once each', async () => {
    const [a, b] = [await startServe(['--no-sync'], env), await startServe(['--no-sync'], env)];
    servers.push(a, b);
    const staff = await staffMember(a.url);
    const bob = await freshMailUser('schedtwo');
    // Far enough ahead that the last of the requests still asks for a future time on a busy machine.
    const at = inSeconds(20);
    const subjects = Array.from({ length: 12 }, (_, i) => uniqueSubject(`Same second ${i}`));
    for (const [i, subject] of subjects.entries()) {
      const res = await staff.as(i % 2 === 0 ? a.url : b.url, 'POST', '/api/emails', { emailAccountId: staff.accountId, to: bob.user, subject, text: 'raz', sendAt: at });
      expect(res.status, JSON.stringify(res.body)).to.equal(202);
    }
    await until(() => subjects.every((s) => relayDeliveries(s).length >= 1), { what: 'every email delivered', timeoutMs: 90_000, intervalMs: 500 });
    const marker = uniqueSubject('Same second marker');
    await staff.as(a.url, 'POST', '/api/emails', { emailAccountId: staff.accountId, to: bob.user, subject: marker, text: 'm', sendAt: inSeconds(1) });
    await until(() => relayDeliveries(marker).length === 1, { what: 'the marker delivered', timeoutMs: 60_000 });
    for (const subject of subjects) expect(relayDeliveries(subject), subject).to.have.length(1);
    // The relay logs a delivery before the mail server answers the submission: the list catches up a moment later.
    await until(
      async () => {
        const list = await staff.as(b.url, 'GET', '/api/scheduled-emails?limit=100');
        return (list.body.data.items as Array<{ status: string }>).filter((s) => s.status === 'sent').length === subjects.length + 1;
      },
      { what: 'every scheduled email recorded as sent', timeoutMs: 30_000, intervalMs: 250 },
    );
  });
});
