/**
 * Connections under a burst of searches (issue 36, ADR 0121): BENCH_CONCURRENT (40) common-word email
 * searches at once against a real `crm-admin serve` (pool DATABASE_POOL_MAX, 20), counting the answers
 * by status and the most connections the instance held (pg_stat_activity, sampled every 20 ms).
 *
 *   node --import=tsx/esm bench/connections-bench.ts                          # this tree's dist/ only
 *   BENCH_BEFORE=/work/main node --import=tsx/esm bench/connections-bench.ts  # and another release's, same database, in turn
 *
 * One throwaway embedded PostgreSQL in /tmp; one user whose account holds BENCH_EMAILS (100,000) emails,
 * every one with the word searched for. Run `npm run build` first (serve runs from dist/).
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Sequelize } from 'sequelize';
import { EmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { migrateUp } from '../src/db/migrator.js';

const EMAILS = Number(process.env.BENCH_EMAILS ?? 100_000);
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 40);
const POOL = process.env.BENCH_POOL ?? '20';
const here = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const trees = [...(process.env.BENCH_BEFORE ? [['before', process.env.BENCH_BEFORE]] : []), ['this tree', here]] as const;

async function seed(url: string): Promise<{ username: string; password: string }> {
  const db = new Sequelize(url, { logging: false });
  await migrateUp(db);
  const username = 'bench.connections';
  // bcrypt of the password at cost 4: the bench measures searches, not logins.
  const password = 'Bench-Connections-2026';
  const { default: bcrypt } = await import('bcrypt');
  const hash = await bcrypt.hash(password, 4);
  // The account's owner becomes its member by a trigger (migration 0009).
  await db.query(
    `WITH u AS (INSERT INTO users (username, password, changed_password, email_setup_skipped) VALUES ($1, $2, true, true) RETURNING id),
          a AS (INSERT INTO email_accounts (user_id, email, email_password, jmap_account_id, is_primary, is_active)
                SELECT id, 'bench@connections.test', 'x', 'bench', true, true FROM u RETURNING id, user_id)
     INSERT INTO contacts (user_id, email_account_id, email, name) SELECT user_id, id, 'partner@connections.test', 'Partner' FROM a`,
    { bind: [username, hash] },
  );
  await db.query(
    `INSERT INTO emails (user_id, email_account_id, contact_id, jmap_id, thread_id, "from", "to", subject, body, is_read, read_pending, date, created_at, updated_at)
     SELECT c.user_id, c.email_account_id, c.id, 'M' || g, 'T' || (g / 3), c.email, 'bench@connections.test',
            'Faktúra č. ' || g, 'Dobrý deň, posielam faktúru a podklady k objednávke ' || g || '.', g % 5 = 0, false,
            now() - g * interval '1 minute', now(), now()
       FROM contacts c, generate_series(1, $1::int) g`,
    { bind: [EMAILS] },
  );
  await db.query('ANALYZE');
  await db.close();
  return { username, password };
}

function startServe(tree: string, env: Record<string, string>): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(path.join(tree, 'bin/crm-admin'), ['serve', '--no-sync'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`serve (${tree}) exited with ${code}`)));
    child.stderr.pipe(process.stderr);
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      // The service's own account of a failure, once per kind: why a request got a 500 or a 503.
      if (/"level":"(?:error|warn)"/.test(line) && line.includes('request failed')) console.error(line.slice(0, 400));
      const match = /"url":"(http:\/\/[^"]+)"/.exec(line);
      if (match) resolve({ url: match[1], stop: () => (child.kill('SIGTERM'), exited) });
    });
  });
}

async function burst(label: string, base: string, token: string, watcher: pg.Client): Promise<void> {
  let most = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      // A watcher whose connection was ended (an administrator's terminate) stops counting, not the bench.
      const rows = await watcher
        .query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'staff-crm%'")
        .then((r) => r.rows)
        .catch(() => [{ n: 0 }]);
      most = Math.max(most, rows[0].n);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const started = Date.now();
  const statuses = await Promise.all(
    Array.from({ length: CONCURRENT }, async () => {
      const res = await fetch(`${base}/api/emails?search=faktura&limit=50`, { headers: { Authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      return { status: res.status, ms: Date.now() - started };
    }),
  );
  sampling = false;
  await sampler;
  const by = new Map<number, number>();
  for (const { status } of statuses) by.set(status, (by.get(status) ?? 0) + 1);
  const times = statuses.map((s) => s.ms).sort((a, b) => a - b);
  console.log(
    `${label}: ${[...by].map(([s, n]) => `${n} × ${s}`).join(', ')}; last answer after ${times.at(-1)} ms, median ${times[Math.floor(times.length / 2)]} ms; ` +
      `most connections held by the instance (pool + LISTEN): ${most}`,
  );
}

async function main(): Promise<void> {
  const root = path.join('/tmp', `crm-bench-connections-${process.pid}`);
  fs.mkdirSync(root, { recursive: true, mode: 0o755 });
  fs.chmodSync(root, 0o755);
  const server = new EmbeddedPostgres(path.join(root, 'pg'));
  const handle = await server.start();
  try {
    console.log(
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; ${EMAILS} emails; ${CONCURRENT} searches at once; pool ${POOL}`,
    );
    // Migrated and seeded as the schema's owner; serve connects as the app role (ADR 0171).
    const { username, password } = await seed(handle.ownerUrl);
    const watcher = new pg.Client({ connectionString: handle.superuserUrl });
    watcher.on('error', () => undefined);
    await watcher.connect();
    for (const [label, tree] of trees) {
      const env = {
        NODE_ENV: 'production',
        DATABASE_URL: handle.url,
        DATABASE_POOL_MAX: POOL,
        CRM_DATA_DIR: path.join(root, `data-${label.replace(/\W/g, '')}`),
        PORT: '0',
        LOG_LEVEL: 'info',
        BCRYPT_ROUNDS: '4',
        JWT_ACCESS_SECRET: crypto.randomBytes(32).toString('hex'),
        JWT_REFRESH_SECRET: crypto.randomBytes(32).toString('hex'),
        CRM_ENCRYPTION_KEY: crypto.randomBytes(32).toString('hex'),
      };
      const serve = await startServe(tree, env);
      try {
        const login = await fetch(`${serve.url}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username, password }) });
        const token = ((await login.json()) as { data: { tokens: { accessToken: string } } }).data.tokens.accessToken;
        // One search first: the plan cache, the session cache and the LISTEN connection are warm.
        await (await fetch(`${serve.url}/api/emails?search=faktura&limit=50`, { headers: { Authorization: `Bearer ${token}` } })).arrayBuffer();
        await burst(`${label} (${tree})`, serve.url, token, watcher);
      } finally {
        await serve.stop();
      }
    }
    await watcher.end();
  } finally {
    await server.stop().catch(() => undefined);
    fs.rmSync(root, { recursive: true, force: true });
  }
}

await main();
