import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { EmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { runCli, startServe, type ServeProcess } from '../support/cli.js';
import { baseTestEnv } from '../support/harness.js';
import { until } from '../support/poll.js';
import { pdfFixture } from '../timesheets/fixtures.js';
import { multipartBody } from '../timesheets/helpers.js';
import { httpTarget, type HttpTarget, type RawResponse } from './support/http-target.js';
import { expectErrorEnvelope } from './support/invariants.js';

/**
 * PostgreSQL stopped (pg_ctl stop -m fast) and started again on the same port while requests flow
 * through a `crm-admin serve` child. What must hold:
 * - every answer is a 2xx or a 503 in the envelope with Retry-After: never a 500, never a 401 (an
 *   outage must not log people out), never a hang;
 * - while the database is down, requests get the 503;
 * - the same process recovers by itself once the database is back (no restart);
 * - every write answered 2xx before, during or after the outage is there afterwards.
 */

interface Outcome {
  kind: 'read' | 'create-user' | 'upload';
  startedAt: number;
  res?: RawResponse;
  transportError?: string;
}

/** Long enough for any honest answer (the pool gives up connecting after 5 s), short of "hanging". */
const HANG_MS = 12_000;

describe('faults: PostgreSQL stopped and restarted while requests flow', function () {
  this.timeout(180_000);
  let pg: EmbeddedPostgres;
  let root: string;
  let serve: ServeProcess | undefined;
  let api: HttpTarget;
  let bearer: string;
  let port: number;

  before(async () => {
    // Not a mkdtemp (mode 700): the postgres OS user must reach the data directory.
    root = path.join('/tmp', `crm-pgfault-${process.pid}-${Date.now()}`);
    fs.mkdirSync(root, { recursive: true, mode: 0o755 });
    fs.chmodSync(root, 0o755);
    pg = new EmbeddedPostgres(path.join(root, 'pg'));
    const { url, ownerUrl } = await pg.start();
    port = Number(new URL(url).port);
    // Without NODE_ENV, as on a server (NODE_ENV=test would put oclif into its development mode).
    const { NODE_ENV: _test, ...base } = baseTestEnv();
    // One admin uploads continuously here: far beyond the per-user upload rate and quota of a real member.
    const limits = { TIMESHEET_UPLOADS_PER_HOUR: '100000', TIMESHEET_QUOTA_FILES: '1000000', TIMESHEET_QUOTA_MB: '100000' };
    const env: Record<string, string> = { ...base, ...limits, DATABASE_URL: url, DATABASE_OWNER_URL: ownerUrl, CRM_DATA_DIR: path.join(root, 'data') };
    // info: startServe reads the URL from the start line.
    serve = await startServe(['--no-sync'], { ...env, LOG_LEVEL: 'info' });
    api = httpTarget(serve.url, { hangMs: HANG_MS });

    const created = await runCli(['users', 'create', '--username', 'pgfault.admin', '--role', 'admin', '--json'], env);
    expect(created.status, created.stderr).to.equal(0);
    const temporaryPassword = (JSON.parse(created.stdout) as { temporaryPassword: string }).temporaryPassword;
    const login = await api.send({
      method: 'POST',
      path: '/api/auth/login',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'pgfault.admin', password: temporaryPassword }),
    });
    expect(login.status, login.text).to.equal(200);
    bearer = `Bearer ${(login.json as { data: { tokens: { accessToken: string } } }).data.tokens.accessToken}`;
    // contract (docs/contract.md §3): a temporary password reaches nothing but onboarding; the session stays valid after it.
    const onboarded = await api.send({
      method: 'POST',
      path: '/api/auth/set-password',
      headers: { Authorization: bearer, 'Content-Type': 'application/json' },
      body: JSON.stringify({ newPassword: 'Pg-Fault-Own-Pass-2026' }),
    });
    expect(onboarded.status, onboarded.text).to.equal(200);
  });

  after(async () => {
    await api?.close();
    if (serve && serve.child.exitCode === null) {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
    await pg?.start({ port }).catch(() => undefined);
    await pg?.stop().catch(() => undefined);
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  /** The server's own account of its 500s, for the failure message. */
  const serverErrors = () =>
    serve!
      .output()
      .split('\n')
      .filter((l) => l.includes('"status":500'))
      .slice(0, 3)
      .join('\n');

  let counter = 0;
  function nextRequest(): { kind: Outcome['kind']; send: () => Promise<RawResponse> } {
    const n = counter++;
    const auth = { Authorization: bearer };
    if (n % 4 === 1) {
      const body = JSON.stringify({ username: `pgfault.u${n}`, role: 'member' });
      return { kind: 'create-user', send: () => api.send({ method: 'POST', path: '/api/admin/users', headers: { ...auth, 'Content-Type': 'application/json' }, body }) };
    }
    if (n % 4 === 3) {
      const { body, contentType } = multipartBody([
        { name: 'year', value: '2026' },
        { name: 'month', value: String((n % 12) + 1) },
        { name: 'file', filename: `vykaz-${n}.pdf`, content: pdfFixture() },
      ]);
      return { kind: 'upload', send: () => api.send({ method: 'POST', path: '/api/timesheets/upload', headers: { ...auth, 'Content-Type': contentType }, body }) };
    }
    const path = n % 2 === 0 ? '/api/admin/users?limit=5' : '/api/timesheets/all?limit=5';
    return { kind: 'read', send: () => api.send({ method: 'GET', path, headers: auth }) };
  }

  /** Workers sending one request after the other until stopped; every outcome is kept. */
  function flow(workers: number) {
    const outcomes: Outcome[] = [];
    let running = true;
    const loops = Array.from({ length: workers }, async () => {
      while (running) {
        const { kind, send } = nextRequest();
        const outcome: Outcome = { kind, startedAt: Date.now() };
        outcomes.push(outcome);
        try {
          outcome.res = await send();
        } catch (err) {
          outcome.transportError = (err as Error).message;
        }
        // A refused request comes back at once; pace the loop so the log stays readable.
        if (outcome.res?.status === 503) await sleep(50);
      }
    });
    return {
      outcomes,
      stop: async () => {
        running = false;
        await Promise.all(loops);
      },
    };
  }

  it('answers 503 while the database is down, recovers by itself, and loses no acknowledged write', async () => {
    const pid = serve!.child.pid;
    const traffic = flow(4);
    const answered = (since: number) => traffic.outcomes.filter((o) => o.startedAt > since && (o.res || o.transportError)).length;
    // Phases end on what happened in them, not after a fixed time: writes acknowledged before the
    // outage, enough requests well inside it, enough after the recovery.
    await until(() => traffic.outcomes.filter((o) => o.res?.status === 201).length >= 2, { what: 'writes acknowledged before the outage', timeoutMs: 30_000 });

    await pg.stop();
    const downSince = Date.now();
    await until(() => answered(downSince + 500) >= 15, { what: 'requests answered while the database is down', timeoutMs: 30_000, intervalMs: 50 });
    const downUntil = Date.now();
    await pg.start({ port });

    // Recovery without a restart: the same process answers ready again.
    const met = await until(async () => (await api.send({ method: 'GET', path: '/api/health/ready' }).catch(() => undefined))?.status === 200, {
      what: 'ready again',
      timeoutMs: 60_000,
      intervalMs: 200,
    }).catch(() => false);
    // The server's last lines say why (it once ended on an unhandled 'error' of a pooled client).
    expect(met, `the service did not recover within a minute of the database coming back:\n${serve!.output().split('\n').slice(-20).join('\n')}`).to.equal(true);
    const recoveredAt = Date.now();
    await until(() => answered(recoveredAt) >= 8, { what: 'requests answered after the recovery', timeoutMs: 30_000 });
    await traffic.stop();
    expect(serve!.child.exitCode, serve!.output()).to.equal(null);
    expect(serve!.child.pid).to.equal(pid);

    const { outcomes } = traffic;
    const failures = outcomes.filter((o) => o.transportError);
    expect(
      failures.map((o) => o.transportError),
      'requests without an answer (hang or dropped connection)',
    ).to.deep.equal([]);
    for (const o of outcomes) {
      const res = o.res!;
      if (res.status === 503) {
        expectErrorEnvelope(res, `${o.kind} at +${o.startedAt - downSince} ms`);
        expect(res.headers['retry-after'], 'Retry-After on a 503').to.match(/^\d+$/);
      } else {
        expect(res.status, `${o.kind} at +${o.startedAt - downSince} ms: ${res.text.slice(0, 300)}\n${serverErrors()}`).to.be.within(200, 299);
      }
    }

    // In flight when the database stopped may go either way; what started well inside the outage is a 503.
    const duringOutage = outcomes.filter((o) => o.startedAt > downSince + 500 && o.startedAt < downUntil);
    expect(duringOutage.length, 'requests sent while the database was down').to.be.greaterThan(10);
    expect(
      duringOutage.filter((o) => o.res!.status !== 503).map((o) => `${o.kind} ${o.res!.status}`),
      'answered other than 503 while down',
    ).to.deep.equal([]);
    const afterRecovery = outcomes.filter((o) => o.startedAt > recoveredAt);
    expect(afterRecovery.length).to.be.greaterThan(5);
    expect(
      afterRecovery.filter((o) => o.res!.status >= 300).map((o) => `${o.kind} ${o.res!.status}`),
      'failing after recovery',
    ).to.deep.equal([]);
    expect(outcomes.filter((o) => o.startedAt < downSince && o.res!.status === 201).length, 'writes acknowledged before the outage').to.be.greaterThan(0);

    // Every acknowledged write is there.
    const acknowledged = outcomes.filter((o) => o.res!.status === 201);
    const users = acknowledged.filter((o) => o.kind === 'create-user').map((o) => (o.res!.json as { data: { user: { id: string } } }).data.user.id);
    const timesheets = acknowledged.filter((o) => o.kind === 'upload').map((o) => (o.res!.json as { data: { timesheet: { id: string; fileSize: number } } }).data.timesheet);
    expect(users.length).to.be.greaterThan(0);
    expect(timesheets.length).to.be.greaterThan(0);
    for (const id of users) {
      const res = await api.send({ method: 'GET', path: `/api/admin/users/${id}`, headers: { Authorization: bearer } });
      expect(res.status, `user ${id} acknowledged with 201 but now: ${res.text}`).to.equal(200);
    }
    for (const { id, fileSize } of timesheets) {
      const res = await api.send({ method: 'GET', path: `/api/timesheets/${id}/download`, headers: { Authorization: bearer } });
      expect(res.status, `timesheet ${id} acknowledged with 201 but now: ${res.text.slice(0, 200)}`).to.equal(200);
      expect(Number(res.headers['content-length'])).to.equal(fileSize);
    }
    // Uploads refused during the outage left no file behind: one file per acknowledged upload.
    expect(fs.readdirSync(path.join(root, 'data', 'timesheets'))).to.have.length(timesheets.length);
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
