import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { QueryTypes, Sequelize } from 'sequelize';
import { EmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { crmAdmin } from '../support/cli.js';
import { baseTestEnv } from '../support/harness.js';
import { testEnv } from '../support/test-env.js';

interface Serve {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function spawnServe(env: Record<string, string>): Serve {
  const child = spawn(crmAdmin, ['serve', '--no-sync'], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** Polls until `check` is true; the deadline is generous: it only stops a test that would hang. */
async function until(what: string, check: () => boolean | Promise<boolean>, deadlineMs = 120_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await sleep(250);
  }
}

async function status(url: string): Promise<number | undefined> {
  try {
    return (await fetch(url)).status;
  } catch {
    return undefined;
  }
}

const count = (text: string, pattern: RegExp) => (text.match(new RegExp(pattern, 'g')) ?? []).length;

/** `serve` on a boot where its PostgreSQL (DATABASE_URL) comes up later than the service. */
describe('serve waits for a database that starts later', function () {
  this.timeout(400_000);
  let pg: EmbeddedPostgres;
  let databaseUrl: string;
  let ownerUrl: string;
  let databasePort: number;
  let serve: Serve | undefined;

  before(async () => {
    const dir = path.join(testEnv.tmpRoot!, 'late-database');
    fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
    // Initialised (its password and URL known), then stopped: the "database host" is still booting.
    pg = new EmbeddedPostgres(dir);
    const handle = await pg.start();
    databaseUrl = handle.url;
    ownerUrl = handle.ownerUrl;
    databasePort = handle.port;
    await pg.stop();
  });

  after(async () => {
    serve?.child.kill('SIGKILL');
    await pg?.stop().catch(() => {});
  });

  it('answers readiness 503 while it retries, becomes ready once the database is up (migrating, logged and audited), logs reconnected after an outage', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    serve = spawnServe({ ...baseTestEnv(), DATABASE_URL: databaseUrl, DATABASE_OWNER_URL: ownerUrl, PORT: String(port), LOG_LEVEL: 'info', DATABASE_WAIT_SECONDS: '300' });
    await until('the listener to answer', async () => (await status(`${base}/api/health/ready`)) !== undefined, 60_000);
    expect(await status(`${base}/api/health/ready`)).to.equal(503);
    expect(await status(`${base}/api/health`)).to.equal(200);
    // The database comes up later than the service; meanwhile every try is logged. Three tries (the
    // first, then after 0.5 s and 1 s more: src/db/database-wait.ts) show it keeps retrying.
    await until('three tries to be logged', () => count(serve!.output(), /database not reachable yet; retrying/) >= 3, 60_000);
    expect(serve.child.exitCode, serve.output()).to.equal(null);
    expect(await status(`${base}/api/health/ready`)).to.equal(503);
    expect(count(serve.output(), /database not reachable yet; retrying/), serve.output()).to.be.at.least(3);
    await pg.start({ port: databasePort });

    await until('readiness 200', async () => (await status(`${base}/api/health/ready`)) === 200);
    const out = serve.output();
    expect(out).to.contain('"message":"database reachable"');
    expect(count(out, /"message":"migration applied"/)).to.be.at.least(20);
    const db = new Sequelize(databaseUrl, { logging: false });
    try {
      const audits = await db.query<{ actor: string; details: { direction: string; to: string } }>("SELECT actor, details FROM audit_logs WHERE action = 'db.migrate'", {
        type: QueryTypes.SELECT,
      });
      expect(audits).to.have.length(1);
      expect(audits[0]).to.deep.include({ actor: 'serve' });
      expect(audits[0].details.direction).to.equal('up');
    } finally {
      await db.close();
    }

    // An outage while running: one line when it is lost, one when it is back.
    await pg.stop();
    await until('the lost connection to be logged', () => serve!.output().includes('database connection lost'));
    await pg.start({ port: databasePort });
    await until('reconnected to be logged', () => serve!.output().includes('"message":"database reconnected"'));
    await until('readiness 200 again', async () => (await status(`${base}/api/health/ready`)) === 200);

    serve.child.kill('SIGTERM');
    expect(await serve.exited, serve.output()).to.equal(0);
  });

  it('stops at once on SIGTERM while waiting', async () => {
    const port = await freePort();
    // Port 1: nothing listens there, the wait would last DATABASE_WAIT_SECONDS.
    const waiting = spawnServe({ ...baseTestEnv(), DATABASE_URL: 'postgres://crm:pw@127.0.0.1:1/crm', PORT: String(port), LOG_LEVEL: 'info', DATABASE_WAIT_SECONDS: '300' });
    try {
      await until('the first retry', () => waiting.output().includes('database not reachable yet'), 60_000);
      waiting.child.kill('SIGTERM');
      // Far below the 300 s it would otherwise wait; only a hang fails this.
      const code = await Promise.race([waiting.exited, sleep(60_000).then(() => 'still running')]);
      expect(code, waiting.output()).to.equal(0);
      expect(waiting.output()).to.contain('stopped while waiting for the database');
    } finally {
      waiting.child.kill('SIGKILL');
    }
  });

  it('fails the start with the usual line when DATABASE_WAIT_SECONDS runs out', async () => {
    const waiting = spawnServe({
      ...baseTestEnv(),
      DATABASE_URL: 'postgres://crm:pw@127.0.0.1:1/crm',
      PORT: String(await freePort()),
      LOG_LEVEL: 'info',
      DATABASE_WAIT_SECONDS: '2',
    });
    try {
      const code = await Promise.race([waiting.exited, sleep(60_000).then(() => 'still running')]);
      expect(code, waiting.output()).to.equal(1);
      expect(waiting.output())
        .to.contain('giving up waiting')
        .and.to.match(/start failed: cannot connect to the database at 127\.0\.0\.1:1\/crm/);
    } finally {
      waiting.child.kill('SIGKILL');
    }
  });
});
