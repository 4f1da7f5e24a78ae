/**
 * mocha --parallel (.mocharc.json): the global setup runs in the main process only, which starts
 * PostgreSQL and Cyrus and hands their addresses to the workers in the environment. Each worker then
 * takes a database and a data directory of its own, as two separate runs would: a worker's files see
 * only their own rows (what "every account", "the last admin" or a backup of the whole database mean),
 * whatever the other worker runs meanwhile. Cyrus is shared, as it already is by every run on the machine.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Sequelize } from 'sequelize';
import { testEnv } from './test-env.js';

/** Environment handed from the main process to the workers. */
export const HANDOVER = { databaseUrl: 'CRM_TEST_DATABASE_URL', tmpRoot: 'CRM_TEST_TMP_ROOT', runId: 'CRM_TEST_RUN_ID' } as const;

/**
 * The migrated database of this run that every fresh one is cloned from (CREATE DATABASE ... TEMPLATE,
 * about a second, instead of running every migration again). Nobody connects to it: PostgreSQL
 * clones only a database without sessions.
 */
export function templateDatabase(): string {
  const runId = process.env[HANDOVER.runId];
  if (!runId) throw new Error('no test run id (global setup did not run?)');
  return `crm_template_${runId}`;
}

/** The URL of `name` on the suite's server. */
export function databaseUrlFor(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Prefix of the workers' databases of this run: the main process drops them at the end. */
export function workerDatabasePrefix(runId: string): string {
  return `crm_w${runId}_`;
}

let ready: Promise<void> | undefined;

/** In a worker, once: its own database (cloned from the template) and data directory. Elsewhere nothing. */
export function ownWorkerEnvironment(): Promise<void> {
  const worker = process.env.MOCHA_WORKER_ID;
  if (worker === undefined) return Promise.resolve();
  return (ready ??= (async () => {
    const base = process.env[HANDOVER.databaseUrl];
    const root = process.env[HANDOVER.tmpRoot];
    const runId = process.env[HANDOVER.runId];
    if (!base || !root || !runId) throw new Error('mocha worker without the run environment (global setup did not run?)');
    const name = `${workerDatabasePrefix(runId)}${worker}_${process.pid}`;
    const admin = new Sequelize(base, { logging: false });
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${templateDatabase()}`);
    } finally {
      await admin.close();
    }
    // Not a mkdtemp (mode 700): the postgres OS user must be able to reach what tests put there.
    const tmpRoot = path.join(root, `worker-${worker}-${process.pid}`);
    fs.mkdirSync(tmpRoot, { recursive: true, mode: 0o755 });
    fs.chmodSync(tmpRoot, 0o755);
    testEnv.databaseUrl = databaseUrlFor(base, name);
    testEnv.tmpRoot = tmpRoot;
    testEnv.jmapSessionUrl = process.env.TEST_JMAP_SESSION_URL;
  })());
}
