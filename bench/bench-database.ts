import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { createAppContext, type AppContext } from '../src/app/context.js';
import { AppConfig } from '../src/config/config.js';
import { EmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { createLogger } from '../src/logging/logger.js';

export interface BenchDatabase {
  ctx: AppContext;
  url: string;
  /** The server's superuser (the embedded one's; BENCH_DATABASE_URL as given): CHECKPOINT and the like. */
  superuserUrl: string;
  /** The environment the app was configured from: a `crm-admin serve` child started with it runs on the same database. */
  env: Record<string, string>;
  /** Closes the app context; a throwaway embedded server is stopped and removed unless `keep` (its URL is printed). */
  close(options?: { keep?: boolean }): Promise<void>;
}

/**
 * The database a benchmark measures: BENCH_DATABASE_URL (an existing, empty database), or a
 * throwaway embedded PostgreSQL in /tmp/crm-bench-<label>-<pid>; migrated, with the whole app on it.
 */
export async function openBenchDatabase(label: string, env: Record<string, string> = {}): Promise<BenchDatabase> {
  const external = process.env.BENCH_DATABASE_URL;
  const tmp = external ? undefined : path.join('/tmp', `crm-bench-${label}-${process.pid}`);
  let embedded: EmbeddedPostgres | undefined;
  let url = external;
  let superuserUrl = external;
  let ownerUrl: string | undefined;
  if (tmp) {
    // World-readable: the embedded server runs as its own user and must reach its directory.
    fs.mkdirSync(tmp, { recursive: true, mode: 0o755 });
    fs.chmodSync(tmp, 0o755);
    embedded = new EmbeddedPostgres(path.join(tmp, 'pg'));
    ({ url, superuserUrl, ownerUrl } = await embedded.start());
  }
  const appEnv: Record<string, string> = {
    NODE_ENV: 'production',
    DATABASE_URL: url!,
    // Migrations run as the schema's owner, the service as the app role (ADR 0171).
    ...(ownerUrl ? { DATABASE_OWNER_URL: ownerUrl } : {}),
    CRM_DATA_DIR: tmp ?? `/tmp/crm-bench-${label}-data`,
    JWT_ACCESS_SECRET: '1455Ctk8e5fyWaFH6d4d8TLzvd9Des6al/DOMjEWOB6IbwlPqe5drebCX8bFA3Kx',
    JWT_REFRESH_SECRET: 'tvYe7WS41tBRHYksKcTAiytXWF7Q+uQBMy5gPqx20IETAZ4+MQ46jMSWxW8Z4uB3',
    CRM_ENCRYPTION_KEY: '4f5edb03a4e3e27b1110244b3c52c42c759985bda1661a5ac46271f550165462',
    LOG_LEVEL: 'error',
    ...env,
  };
  const config = AppConfig.fromEnv(appEnv);
  const ctx = await createAppContext({ config, logger: createLogger('error', { silent: true }), migrate: true });
  return {
    ctx,
    url: url!,
    superuserUrl: superuserUrl!,
    env: appEnv,
    async close({ keep = false } = {}) {
      await ctx.close();
      if (keep) {
        console.log(`kept: ${url} (${tmp ?? 'external'})`);
        return;
      }
      await embedded?.stop().catch(() => undefined);
      if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/**
 * Runs a maintenance statement (VACUUM, ANALYZE, CREATE INDEX) as the schema's owner, on a connection of
 * its own without the pool's statement timeout. Not as the service's role: it owns no table since 0.6.0
 * (ADR 0171), and PostgreSQL skips a table its caller does not own with only a warning, so a VACUUM
 * ANALYZE as that role would leave the statistics as they were and the bench would measure other plans.
 */
export async function maintain(ctx: AppContext, ...statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: ctx.db.ownerUrl ?? ctx.config.databaseUrl });
  await client.connect();
  try {
    for (const sql of statements) await client.query(sql);
  } finally {
    await client.end();
  }
}
