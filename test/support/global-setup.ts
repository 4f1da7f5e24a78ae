/**
 * Starts the real services the suite talks to, once per run: a throwaway PostgreSQL (embedded, in a
 * temp directory) and the Cyrus JMAP server on loopback. TEST_DATABASE_URL / TEST_JMAP_SESSION_URL
 * point the suite at servers someone already runs instead.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { testEnv } from './test-env.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
let embedded: EmbeddedPostgres | undefined;
let tmpRoot: string | undefined;

export async function mochaGlobalSetup(): Promise<void> {
  // Not a mkdtemp (mode 700): the postgres OS user must be able to reach the data directory.
  tmpRoot = path.join('/tmp', `crm-test-${process.pid}-${Date.now()}`);
  fs.mkdirSync(tmpRoot, { recursive: true, mode: 0o755 });
  fs.chmodSync(tmpRoot, 0o755);
  testEnv.tmpRoot = tmpRoot;

  if (process.env.TEST_DATABASE_URL) {
    testEnv.databaseUrl = process.env.TEST_DATABASE_URL;
  } else {
    embedded = new EmbeddedPostgres(path.join(tmpRoot, 'pg'));
    testEnv.databaseUrl = (await embedded.start()).url;
  }

  if (process.env.TEST_JMAP_SESSION_URL) {
    testEnv.jmapSessionUrl = process.env.TEST_JMAP_SESSION_URL;
  } else {
    execFileSync('bash', [path.join(repoRoot, 'scripts/jmap/start.sh')], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 600_000 });
    testEnv.jmapSessionUrl = `http://127.0.0.1:${process.env.JMAP_HTTP_PORT ?? 18080}/.well-known/jmap`;
  }
  process.env.TEST_JMAP_SESSION_URL = testEnv.jmapSessionUrl;
}

export async function mochaGlobalTeardown(): Promise<void> {
  const { closeSharedContext } = await import('./harness.js');
  await closeSharedContext();
  await embedded?.stop().catch(() => {});
  if (tmpRoot && !process.env.TEST_KEEP_TMP) fs.rmSync(tmpRoot, { recursive: true, force: true });
}
