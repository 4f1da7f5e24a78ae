/**
 * API token vs cookie session: `node --import=tsx/esm bench/api-token-bench.ts` (BENCH_SECONDS, BENCH_ROUNDS, BENCH_CONNECTIONS).
 *
 * Issue 48: a request with a Bearer API token must cost at most 1.2x a cookie session request on
 * GET /api/auth/me. The server runs in a child process (the compiled program), the load generator
 * in this one. One run, one throwaway embedded PostgreSQL in /tmp; the two sides
 * alternate round by round (cookie, token, cookie, token, ...) so other work on the machine weighs
 * on both alike, and the median of the per-round ratios is reported: by throughput, and by the
 * server process's CPU time per request (/proc), the steadier of the two on a shared machine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import autocannon from 'autocannon';
import bcrypt from 'bcrypt';
import { createSequelize } from '../src/db/database.js';
import { EmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { migrateUp } from '../src/db/migrator.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const PASSWORD = 'Bench-heslo-2024!';

/**
 * The server child runs the compiled program (dist/, built by `npm ci` or `npm run build`) as
 * production does: under tsx, the lazily required service modules (src/app/wiring/lazy-module.ts)
 * would load a second copy of the models.
 */
const dist = (file: string) => JSON.stringify(new URL(`../dist/src/${file}`, import.meta.url).href);
const SERVER = `
  const http = await import('node:http');
  const { createAppContext } = await import(${dist('app/context.js')});
  const { AppConfig } = await import(${dist('config/config.js')});
  const { createApp } = await import(${dist('app/http-app.js')});
  const { createLogger } = await import(${dist('logging/logger.js')});
  const ctx = await createAppContext({ config: AppConfig.fromEnv(process.env), logger: createLogger('error', { silent: process.env.BENCH_LOG !== '1' }), poolMax: 20 });
  const server = http.createServer(createApp(ctx));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  process.stdout.write(JSON.stringify({ port: server.address().port }) + '\\n');
  process.once('SIGINT', () => process.exit(0));
`;

function startChild(env: Record<string, string>, dir: string): Promise<{ child: ChildProcess; url: string }> {
  const script = path.join(dir, 'server.mjs');
  fs.writeFileSync(script, SERVER);
  const child = spawn(process.execPath, [script], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('{"port"')) resolve({ child, url: `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}` });
      // BENCH_LOG=1: the server's log lines (stdout, as serve writes them), for a bench that fails.
      else process.stderr.write(`server: ${line}\n`);
    });
  });
}

async function seedUser(databaseUrl: string): Promise<void> {
  const sequelize = createSequelize(databaseUrl, 2);
  await migrateUp(sequelize);
  // Plain SQL: the models module stays out of this file, which the server child loads too.
  await sequelize.query("INSERT INTO users (username, role, password, changed_password, email_setup_skipped) VALUES ('bench', 'member', $hash, true, true)", {
    bind: { hash: await bcrypt.hash(PASSWORD, 4) },
  });
  await sequelize.close();
}

function load(url: string, headers: Record<string, string>, seconds: number) {
  return autocannon({ url: `${url}/api/auth/me`, connections: CONNECTIONS, duration: seconds, headers });
}

/**
 * CPU seconds (user + system) the server process has used, from /proc: what a request costs the
 * server, much steadier on a shared machine than throughput, which follows what the others run.
 */
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat(5), counted here from field 3 (the state).
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}
const CLOCK_TICKS = 100;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const tmpRoot = path.join('/tmp', `crm-token-bench-${process.pid}-${Date.now()}`);
  fs.mkdirSync(tmpRoot, { recursive: true, mode: 0o755 });
  fs.chmodSync(tmpRoot, 0o755);
  const pg = new EmbeddedPostgres(path.join(tmpRoot, 'pg'));
  let child: ChildProcess | undefined;
  try {
    const { url: databaseUrl, ownerUrl } = await pg.start();
    // Migrated and seeded as the schema's owner; the server serves as the app role (ADR 0171).
    await seedUser(ownerUrl);
    const server = await startChild(
      {
        NODE_ENV: 'production',
        DATABASE_URL: databaseUrl,
        CRM_DATA_DIR: path.join(tmpRoot, 'data'),
        BCRYPT_ROUNDS: '4',
        LOG_LEVEL: 'error',
        ...(process.env.BENCH_LOG ? { BENCH_LOG: process.env.BENCH_LOG } : {}),
        JWT_ACCESS_SECRET: crypto.randomBytes(32).toString('hex'),
        JWT_REFRESH_SECRET: crypto.randomBytes(32).toString('hex'),
        CRM_ENCRYPTION_KEY: crypto.randomBytes(32).toString('hex'),
      },
      tmpRoot,
    );
    child = server.child;
    const login = await fetch(`${server.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bench', password: PASSWORD }),
    });
    const loggedIn = (await login.json()) as { data?: { tokens: { accessToken: string } } };
    if (!loggedIn.data) throw new Error(`login answered ${login.status} ${JSON.stringify(loggedIn)}`);
    const accessToken = loggedIn.data.tokens.accessToken;
    const created = await fetch(`${server.url}/api/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
      body: JSON.stringify({ name: 'bench', scopes: ['contacts:read'] }),
    });
    const apiToken = ((await created.json()) as { data: { token: string } }).data.token;
    // Production names the cookie __Host-accessToken (docs/contract.md §5).
    const cookie = { cookie: `__Host-accessToken=${accessToken}` };
    const bearer = { authorization: `Bearer ${apiToken}` };
    for (const [label, headers] of [
      ['cookie', cookie],
      ['token', bearer],
    ] as const) {
      const res = await fetch(`${server.url}/api/auth/me`, { headers });
      if (res.status !== 200) throw new Error(`${label} /me answered ${res.status}`);
    }
    console.log(
      `api token bench: ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)} (shared machine: timings are noisy), ` +
        `${SECONDS} s per side, ${ROUNDS} rounds, ${CONNECTIONS} connections, Node ${process.version}`,
    );
    // Warm-up: JIT, the pool, both caches listening.
    await load(server.url, cookie, 2);
    await load(server.url, bearer, 2);
    const ratios: number[] = [];
    const cpuRatios: number[] = [];
    const pid = server.child.pid!;
    const measure = async (headers: Record<string, string>) => {
      const before = cpuSeconds(pid);
      const result = await load(server.url, headers, SECONDS);
      return { result, cpuMicros: ((cpuSeconds(pid) - before) / result.requests.total) * 1e6 };
    };
    for (let round = 1; round <= ROUNDS; round++) {
      // Alternating which side goes first, so neither always follows the other.
      const first = await measure(round % 2 === 1 ? cookie : bearer);
      const second = await measure(round % 2 === 1 ? bearer : cookie);
      const [c, t] = round % 2 === 1 ? [first, second] : [second, first];
      for (const [label, { result: r }] of [
        ['cookie', c],
        ['token', t],
      ] as const) {
        if (r.non2xx + r.errors + r.timeouts > 0) console.log(`  ! ${label}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
      }
      // Cost per request: the inverse of throughput at the same concurrency, and the server's CPU per request.
      const ratio = c.result.requests.average / t.result.requests.average;
      const cpuRatio = t.cpuMicros / c.cpuMicros;
      ratios.push(ratio);
      cpuRatios.push(cpuRatio);
      console.log(
        `  round ${round}: cookie ${c.result.requests.average.toFixed(0)} req/s, ${c.cpuMicros.toFixed(0)} µs CPU/req (p50 ${c.result.latency.p50} ms); ` +
          `token ${t.result.requests.average.toFixed(0)} req/s, ${t.cpuMicros.toFixed(0)} µs CPU/req (p50 ${t.result.latency.p50} ms) ` +
          `-> token cost ${ratio.toFixed(2)}x by throughput, ${cpuRatio.toFixed(2)}x by server CPU`,
      );
    }
    console.log(`token request CPU / cookie request CPU (server process): median ${median(cpuRatios).toFixed(2)}x (target <= 1.2x)`);
    console.log(`token request cost / cookie request cost by throughput: median ${median(ratios).toFixed(2)}x (target <= 1.2x)`);
  } finally {
    child?.kill('SIGINT');
    await pg.stop().catch(() => {});
    fs.rmSync(tmpRoot, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
