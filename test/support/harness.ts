import path from 'node:path';
import type { Express } from 'express';
import { createAppContext, type AppContext } from '../../src/app/context.js';
import { AppConfig } from '../../src/config/config.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrateUp } from '../../src/db/migrator.js';
import { createApp } from '../../src/app/http-app.js';
import { createLogger } from '../../src/logging/logger.js';
import { responseContract } from './openapi-contract.js';
import { requireDatabaseUrl, testEnv } from './test-env.js';

let sharedDb: Database | undefined;
const contexts = new Map<string, Promise<AppContext>>();

/** The environment every test context starts from; tests override single variables. */
export function baseTestEnv(): Record<string, string> {
  return {
    NODE_ENV: 'test',
    DATABASE_URL: requireDatabaseUrl(),
    CRM_DATA_DIR: path.join(testEnv.tmpRoot ?? '/tmp', 'data'),
    JMAP_SESSION_URL: testEnv.jmapSessionUrl ?? '',
    JMAP_TIMEOUT_MS: '5000',
    BCRYPT_ROUNDS: '4',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    // Random (openssl rand): production mode refuses guessable secrets (src/config/secret-strength.ts).
    JWT_ACCESS_SECRET: 'culaLqDF7tP/NDC5RM0GGX48ifLfOmC6ypjkbPpM30I8L6DFhtWcRjgVSU4F98kV',
    JWT_REFRESH_SECRET: 'LcjfZC8qRiCa/apScUgj7g4SUOmLtwp0/FcNCnSMNh9m4HrqUSr0cLqHHKt33BC5',
    CRM_ENCRYPTION_KEY: '057b000f0d4fd07f0f0b8475f15876fa0011d8568268312dd54e5fab212fe71a',
  };
}

async function sharedDatabase(config: AppConfig): Promise<Database> {
  if (!sharedDb) {
    sharedDb = await openDatabase(config, createLogger('error', { silent: true }), { poolMax: 15 });
    await migrateUp(sharedDb.sequelize);
  }
  return sharedDb;
}

/**
 * An app context on the suite's real PostgreSQL. Contexts with different settings (e.g. production
 * cookies) share one pool, because Sequelize models bind to one instance per process.
 */
export function testContext(overrides: Record<string, string> = {}): Promise<AppContext> {
  const key = JSON.stringify(overrides);
  let ctx = contexts.get(key);
  if (!ctx) {
    ctx = (async () => {
      const config = AppConfig.fromEnv({ ...baseTestEnv(), ...overrides });
      const logger = createLogger(config.logLevel, { silent: !process.env.TEST_LOG_LEVEL });
      return createAppContext({ config, logger, db: await sharedDatabase(config) });
    })();
    contexts.set(key, ctx);
  }
  return ctx;
}

const apps = new Map<string, Promise<Express>>();

/**
 * The real express app (all middleware, all routes) for supertest, with the OpenAPI response check in
 * front: every response it gives is checked against the document (test/support/openapi-hooks.ts).
 */
export function testApp(overrides: Record<string, string> = {}): Promise<Express> {
  const key = JSON.stringify(overrides);
  let app = apps.get(key);
  if (!app) {
    app = testContext(overrides).then((ctx) => createApp(ctx, { observers: [responseContract(ctx.config.metricsPath).middleware()] }));
    apps.set(key, app);
  }
  return app;
}

export async function closeSharedContext(): Promise<void> {
  contexts.clear();
  apps.clear();
  await sharedDb?.close().catch(() => {});
  sharedDb = undefined;
}
