/**
 * Authentication benchmark: `node --import=tsx/esm bench/auth-bench.ts` (BENCH_SECONDS, BENCH_ROUNDS, BENCH_BCRYPT_ROUNDS, BENCH_ME_RATE).
 *
 * The servers run in a child process (this file with the argument `server`), the load generator and
 * the raw bcrypt baseline in this one, so neither shares an event loop with what it measures. All on
 * one machine, one run, a throwaway embedded PostgreSQL in /tmp.
 *   1. GET /api/auth/me through the full stack vs a bare express handler returning the same JSON, with
 *      wrk (one thread, 50 connections, its own process: bench/wrk.ts), once with a session's access
 *      token and once with a personal API token, the three sides in turn each round. Each run prints
 *      the CPU the server process and wrk used: a server near one core while wrk uses far less is the
 *      server's limit, not the load generator's (autocannon, a Node process, was not: issue 51).
 *   2. Login throughput vs raw bcrypt.compare at the same cost on the same cores.
 *   3. p99 of /me at a fixed request rate, idle vs while logins flood the server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import bcrypt from 'bcrypt';
import express from 'express';
import { createAppContext } from '../src/app/context.js';
import { AppConfig } from '../src/config/config.js';
import { createSequelize } from '../src/db/database.js';
import { EmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { migrateUp } from '../src/db/migrator.js';
import { createApp } from '../src/app/http-app.js';
import { createLogger } from '../src/logging/logger.js';
import { User } from '../src/models/index.js';
import { runWrk, wrkAvailable, type WrkRun } from './wrk.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_BCRYPT_ROUNDS ?? 12);
const PASSWORD = 'Bench-heslo-2024!';
const USERS = 200;
const ROUNDS_PER_PART = Number(process.env.BENCH_ROUNDS ?? 3);
const thisFile = fileURLToPath(import.meta.url);
/** BENCH_PARTS=1 runs only the /me comparison; BENCH_CPU_PROF=DIR profiles the servers' process (node --cpu-prof). */
const PARTS = new Set((process.env.BENCH_PARTS ?? '1,2,3').split(',').map(Number));
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF;

function serverEnv(databaseUrl: string, dataDir: string): Record<string, string> {
  return {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    CRM_DATA_DIR: dataDir,
    BCRYPT_ROUNDS: String(ROUNDS),
    LOG_LEVEL: 'error',
    // The login flood comes from many addresses, like real users behind a proxy.
    TRUST_PROXY: '1',
    JWT_ACCESS_SECRET: crypto.randomBytes(32).toString('hex'),
    JWT_REFRESH_SECRET: crypto.randomBytes(32).toString('hex'),
    CRM_ENCRYPTION_KEY: crypto.randomBytes(32).toString('hex'),
  };
}

/** Child mode: the real app and the bare baseline, both on 127.0.0.1, same process. */
async function runServers(): Promise<void> {
  const config = AppConfig.fromEnv(process.env);
  const ctx = await createAppContext({ config, logger: createLogger('error', { silent: true }), poolMax: 20 });
  const full = http.createServer(createApp(ctx));
  const bare = express();
  let body: unknown = {};
  bare.use(express.json());
  bare.post('/set', (req, res) => {
    body = req.body;
    res.end();
  });
  bare.get('/me', (_req, res) => {
    res.json(body);
  });
  const bareServer = http.createServer(bare);
  const listen = (s: http.Server) => new Promise<number>((r) => s.listen(0, '127.0.0.1', () => r((s.address() as AddressInfo).port)));
  const ports = { full: await listen(full), bare: await listen(bareServer) };
  process.stdout.write(`${JSON.stringify({ ports })}\n`);
  // An exit rather than death by signal, so that --cpu-prof writes its profile.
  process.once('SIGINT', () => process.exit(0));
}

function startChild(env: Record<string, string>): Promise<{ child: ChildProcess; full: string; bare: string }> {
  const profile = CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx/esm', thisFile, 'server'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith('{"ports"')) return;
      const { ports } = JSON.parse(line) as { ports: { full: number; bare: number } };
      resolve({ child, full: `http://127.0.0.1:${ports.full}`, bare: `http://127.0.0.1:${ports.bare}` });
    });
  });
}

/** Users with one shared bcrypt hash (a real one at the bench cost; the salt is inside the hash). */
async function seedUsers(databaseUrl: string): Promise<string[]> {
  const sequelize = createSequelize(databaseUrl, 4);
  await migrateUp(sequelize);
  const hash = await bcrypt.hash(PASSWORD, ROUNDS);
  const names = Array.from({ length: USERS }, (_, i) => `bench${i}`);
  await User.bulkCreate(
    names.map((username) => ({
      username,
      firstName: null,
      lastName: null,
      role: 'member' as const,
      password: hash,
      changedPassword: true,
      emailSetupSkipped: true,
      tempPassword: null,
      tempPasswordExpiresAt: null,
      lastLogin: null,
    })),
  );
  await sequelize.close();
  return names;
}

async function rawBcryptPerSecond(seconds: number): Promise<number> {
  const hash = await bcrypt.hash(PASSWORD, ROUNDS);
  const deadline = Date.now() + seconds * 1000;
  let done = 0;
  // As many in flight as the server's libuv pool runs at once (same default size, same cores).
  const worker = async () => {
    while (Date.now() < deadline) {
      await bcrypt.compare(PASSWORD, hash);
      done++;
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: 16 }, worker));
  return done / ((Date.now() - started) / 1000);
}

function loginFlood(url: string, users: string[], connections: number, seconds: number) {
  let i = 0;
  return autocannon({
    url: `${url}/api/auth/login`,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        setupRequest: (req) => {
          const username = users[i++ % users.length];
          const ip = `10.${crypto.randomInt(256)}.${crypto.randomInt(256)}.${crypto.randomInt(1, 255)}`;
          return { ...req, headers: { 'content-type': 'application/json', 'x-forwarded-for': ip }, body: JSON.stringify({ username, password: PASSWORD }) };
        },
      },
    ],
  });
}

function meLoad(url: string, path: string, token: string | undefined, options: { connections: number; overallRate?: number }, seconds: number) {
  return autocannon({
    url: `${url}${path}`,
    connections: options.connections,
    overallRate: options.overallRate,
    duration: seconds,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
}

function check(result: autocannon.Result, label: string): void {
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0) console.log(`  ! ${label}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
}

const fmt = (n: number, digits = 0) => n.toFixed(digits);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Prints each round (measured, baseline) and the median ratio. */
function report(label: string, rounds: Array<[number, number]>, target: string, digits = 0): void {
  const ratios = rounds.map(([value, base]) => value / base);
  console.log(`${label}: median ratio ${fmt(median(ratios), 2)} (${target})`);
  for (const [i, [value, base]] of rounds.entries()) console.log(`   round ${i + 1}: ${fmt(value, digits)} vs ${fmt(base, digits)} -> ${fmt(value / base, 2)}`);
}

const cores = (run: WrkRun) => `server ${run.serverCores.toFixed(2)} cores ${fmt(run.serverMicrosPerRequest)} µs/req, wrk ${run.wrkCores.toFixed(2)} cores`;

/** Part 1: the full stack's /me (access token, API token) against the bare handler, in turn, with wrk. */
async function mePart(servers: { full: string; bare: string; pid: number }, token: string, apiToken: string): Promise<void> {
  if (!wrkAvailable()) throw new Error('part 1 needs wrk (apt-get install wrk)');
  const load = (url: string, bearer?: string) =>
    runWrk(url, { seconds: SECONDS, connections: 50, serverPid: servers.pid, headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });
  for (const bearer of [token, apiToken]) await load(`${servers.full}/api/auth/me`, bearer); // warm-up (JIT, pool, caches)
  await load(`${servers.bare}/me`);
  const session: Array<[number, number]> = [];
  const api: Array<[number, number]> = [];
  // The server's CPU per request, bare over full: what the ratio of req/s is when the server alone limits.
  const sessionCpu: Array<[number, number]> = [];
  const apiCpu: Array<[number, number]> = [];
  for (let round = 0; round < ROUNDS_PER_PART; round++) {
    const bare = await load(`${servers.bare}/me`);
    const full = await load(`${servers.full}/api/auth/me`, token);
    const viaApiToken = await load(`${servers.full}/api/auth/me`, apiToken);
    for (const [label, run] of [
      ['bare', bare],
      ['access token', full],
      ['API token', viaApiToken],
    ] as const) {
      if (run.non2xx + run.errors > 0) console.log(`  ! ${label}: ${run.non2xx} non-2xx, ${run.errors} socket errors`);
    }
    console.log(
      `   round ${round + 1} (load ${os.loadavg()[0].toFixed(1)}): bare ${fmt(bare.requestsPerSecond)} req/s (${cores(bare)}, p99 ${fmt(bare.p99, 2)} ms); ` +
        `access token ${fmt(full.requestsPerSecond)} (${cores(full)}, p99 ${fmt(full.p99, 2)} ms); API token ${fmt(viaApiToken.requestsPerSecond)} (${cores(viaApiToken)}, p99 ${fmt(viaApiToken.p99, 2)} ms)`,
    );
    session.push([full.requestsPerSecond, bare.requestsPerSecond]);
    api.push([viaApiToken.requestsPerSecond, bare.requestsPerSecond]);
    sessionCpu.push([bare.serverMicrosPerRequest, full.serverMicrosPerRequest]);
    apiCpu.push([bare.serverMicrosPerRequest, viaApiToken.serverMicrosPerRequest]);
  }
  report('1a. GET /me req/s with a session access token (full stack vs bare express handler)', session, 'target >= 0.5');
  report('1b. GET /me req/s with a personal API token (full stack vs bare express handler)', api, 'target >= 0.5');
  report('1c. server CPU µs per request, bare over access token (the 1a ratio without other load)', sessionCpu, 'target >= 0.5');
  report('1d. server CPU µs per request, bare over API token (the 1b ratio without other load)', apiCpu, 'target >= 0.5');
}

async function main(): Promise<void> {
  const tmpRoot = path.join('/tmp', `crm-bench-${process.pid}-${Date.now()}`);
  fs.mkdirSync(tmpRoot, { recursive: true, mode: 0o755 });
  fs.chmodSync(tmpRoot, 0o755);
  const pg = new EmbeddedPostgres(path.join(tmpRoot, 'pg'));
  let child: ChildProcess | undefined;
  try {
    const { url: databaseUrl, ownerUrl } = await pg.start();
    // Migrated and seeded as the schema's owner; the server serves as the app role (ADR 0171).
    const users = await seedUsers(ownerUrl);
    const servers = await startChild(serverEnv(databaseUrl, path.join(tmpRoot, 'data')));
    child = servers.child;
    console.log(
      `auth bench: ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}, bcrypt cost ${ROUNDS}, ${SECONDS} s per side in ${ROUNDS_PER_PART} rounds, Node ${process.version}`,
    );

    const login = await fetch(`${servers.full}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: users[0], password: PASSWORD }),
    });
    const token = ((await login.json()) as { data: { tokens: { accessToken: string } } }).data.tokens.accessToken;
    const created = await fetch(`${servers.full}/api/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'bench', scopes: ['contacts:read'] }),
    });
    const apiToken = ((await created.json()) as { data: { token: string } }).data.token;
    const meBody = (await (await fetch(`${servers.full}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } })).json()) as unknown;
    await fetch(`${servers.bare}/set`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(meBody) });

    // Other work on the machine comes and goes: each comparison alternates its two sides over ROUNDS
    // rounds and reports the median of the per-round ratios.
    const seconds = SECONDS;

    // 1. /me full stack vs bare handler
    if (PARTS.has(1)) await mePart({ ...servers, pid: child.pid! }, token, apiToken);
    if (!PARTS.has(2) && !PARTS.has(3)) return;

    // 2. login vs raw bcrypt.compare
    const logins: Array<[number, number]> = [];
    for (let round = 0; round < ROUNDS_PER_PART; round++) {
      const raw = await rawBcryptPerSecond(seconds);
      const flood = await loginFlood(servers.full, users, 16, seconds);
      check(flood, 'login');
      logins.push([(flood.requests.total - flood.non2xx) / seconds, raw]);
    }
    report('2. logins/s (login endpoint vs raw bcrypt.compare, same cost)', logins, 'target >= 0.8', 1);

    // 3. /me p99 at a fixed rate, idle vs under a login flood
    const rate = Number(process.env.BENCH_ME_RATE ?? 200);
    const p99: Array<[number, number]> = [];
    let floodRate = 0;
    for (let round = 0; round < ROUNDS_PER_PART; round++) {
      const idle = await meLoad(servers.full, '/api/auth/me', token, { connections: 10, overallRate: rate }, seconds);
      const [loaded, flood] = await Promise.all([
        meLoad(servers.full, '/api/auth/me', token, { connections: 10, overallRate: rate }, seconds),
        loginFlood(servers.full, users, 50, seconds),
      ]);
      check(idle, 'idle /me');
      check(loaded, '/me under flood');
      floodRate += (flood.requests.total - flood.non2xx) / seconds / ROUNDS_PER_PART;
      p99.push([loaded.latency.p99, idle.latency.p99]);
    }
    report(`3. /me p99 ms at ${rate} req/s (during a login flood of ${fmt(floodRate, 1)} logins/s vs idle)`, p99, 'target <= 3');
  } finally {
    child?.kill('SIGINT');
    await pg.stop().catch(() => {});
    fs.rmSync(tmpRoot, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'server') {
  await runServers();
} else {
  await main();
  process.exit(0);
}
