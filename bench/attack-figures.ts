/**
 * The figures of issue 13's closing note, measured against the real app (embedded PostgreSQL in a
 * temporary directory, or BENCH_DATABASE_URL) and the test Cyrus (BENCH_JMAP_SESSION_URL, default the
 * suite's http://127.0.0.1:18080/.well-known/jmap; start it with scripts/jmap/start.sh):
 *
 *  1. audit rows written by 1000 invalid login bodies from one client;
 *  2. mail-password guesses through POST /api/email-accounts before the first 429, and their rate.
 *
 * Run it on two commits (before and after the fix) to compare:
 *   node --import=tsx/esm bench/attack-figures.ts [guessSeconds=15]
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { QueryTypes } from 'sequelize';

const GUESS_SECONDS = Number(process.argv[2] ?? 15);
const INVALID_LOGINS = 1000;

async function main(): Promise<void> {
  const { AppConfig } = await import('../src/config/config.js');
  const { createAppContext } = await import('../src/app/context.js');
  const { createApp } = await import('../src/app/http-app.js');
  const { createLogger } = await import('../src/logging/logger.js');

  // Not a mkdtemp (mode 700): when run as root, the embedded postgres runs as another OS user.
  const dir = path.join('/tmp', `crm-attack-figures-${process.pid}`);
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  fs.chmodSync(dir, 0o755);
  const config = AppConfig.fromEnv({
    NODE_ENV: 'test',
    CRM_DATA_DIR: dir,
    ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}),
    JMAP_SESSION_URL: process.env.BENCH_JMAP_SESSION_URL ?? 'http://127.0.0.1:18080/.well-known/jmap',
    JMAP_TIMEOUT_MS: '5000',
    BCRYPT_ROUNDS: '4',
    TRUST_PROXY: '1',
    LOG_LEVEL: 'error',
    JWT_ACCESS_SECRET: crypto.randomBytes(32).toString('hex'),
    JWT_REFRESH_SECRET: crypto.randomBytes(32).toString('hex'),
    CRM_ENCRYPTION_KEY: crypto.randomBytes(32).toString('hex'),
  });
  const ctx = await createAppContext({ config, logger: createLogger('error', { silent: true }), migrate: true });
  try {
    const app = createApp(ctx);
    const count = async (sql: string, bind: unknown[]) => (await ctx.db.sequelize.query<{ n: number }>(sql, { bind, type: QueryTypes.SELECT }))[0].n;

    // 1. Invalid login bodies from one client.
    const ip = `10.77.${crypto.randomInt(255)}.${crypto.randomInt(1, 255)}`;
    const statuses = new Map<number, number>();
    const started = Date.now();
    for (let i = 0; i < INVALID_LOGINS; i++) {
      const res = await request(app)
        .post('/api/auth/login')
        .set('X-Forwarded-For', ip)
        .send({ username: `flood${i}`, password: 42 });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
    const rows = await count('SELECT count(*)::int AS n FROM audit_logs WHERE ip = $1', [ip]);
    console.log(`invalid logins from one client: ${INVALID_LOGINS} in ${((Date.now() - started) / 1000).toFixed(1)} s, answers ${JSON.stringify(Object.fromEntries(statuses))}`);
    console.log(`  audit rows written: ${rows}`);

    // 2. Mail-password guesses by one member, for an address no one has (the server answers 401 as for a wrong password).
    const { user } = await ctx.services.users.create({ username: `bench${crypto.randomBytes(4).toString('hex')}`, role: 'member' }, { actor: 'bench' });
    const { accessToken } = await ctx.services.sessions.create(user, { rememberMe: false }, { actor: 'bench' });
    const target = `victim-${crypto.randomBytes(4).toString('hex')}@example.test`;
    let guesses = 0;
    let firstThrottled: number | undefined;
    const other = new Map<number, number>();
    const guessStart = Date.now();
    while (Date.now() - guessStart < GUESS_SECONDS * 1000) {
      const res = await request(app)
        .post('/api/email-accounts')
        .set('Authorization', `Bearer ${accessToken}`)
        .send({ email: target, emailPassword: `guess-${guesses}` });
      if (res.status === 429) {
        firstThrottled = guesses;
        break;
      }
      if (res.status !== 400) other.set(res.status, (other.get(res.status) ?? 0) + 1);
      guesses++;
    }
    const seconds = (Date.now() - guessStart) / 1000;
    if (other.size > 0) console.log(`  (answers other than 400: ${JSON.stringify(Object.fromEntries(other))}; is the mail server up?)`);
    if (firstThrottled === undefined) {
      console.log(`mail-password guesses: ${guesses} in ${seconds.toFixed(1)} s (${Math.round((guesses / seconds) * 60)} per minute), never a 429`);
    } else {
      console.log(`mail-password guesses: ${firstThrottled} answered before the first 429 (after ${seconds.toFixed(1)} s); then 429 with Retry-After`);
    }
  } finally {
    await ctx.close({ stopEmbedded: true });
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
