/**
 * Which mail server this test process talks to, and starting it:
 * - the medium tier (.mocharc.medium.json) starts the in-process JMAP fake (test/support/jmap-fake/)
 *   once per process, before the first file;
 * - the end-to-end tier uses the shared Cyrus of the machine, started lazily: only before a file that
 *   needs it (needsCyrus: its imports reach the mail fixtures of test/support/imap.ts or the relay log,
 *   or it signs in as a user start.sh creates), or at the first mail user a test creates. The lease is the run's (its main process's pid), so the
 *   main process's teardown gives it back (test/support/global-setup.ts, scripts/jmap/lib.sh "Leases").
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { FakeJmapServer } from './jmap-fake/server.js';
import { testEnv } from './test-env.js';
import { HANDOVER } from './worker-environment.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
let fake: FakeJmapServer | undefined;
let fakeStarting: Promise<FakeJmapServer> | undefined;
let cyrusReady: Promise<void> | undefined;

/** The fake of this process, when this is the medium tier. */
export function activeFake(): FakeJmapServer | undefined {
  return fake;
}

/** Starts the fake once per process and points the harness at it (testContext reads testEnv.jmapSessionUrl). */
export function startFakeMailServer(): Promise<FakeJmapServer> {
  return (fakeStarting ??= FakeJmapServer.start().then((server) => {
    fake = server;
    testEnv.jmapSessionUrl = server.sessionUrl;
    process.env.TEST_JMAP_SESSION_URL = server.sessionUrl;
    return server;
  }));
}

export async function stopFakeMailServer(): Promise<void> {
  await fake?.close();
  fake = undefined;
  fakeStarting = undefined;
}

/** The file where a run that leased Cyrus says so, for the main process's teardown. */
export function cyrusLeaseMarker(tmpRoot: string): string {
  return path.join(tmpRoot, 'jmap-leased');
}

/**
 * Makes sure the shared Cyrus runs (scripts/jmap/start.sh: idempotent, serialised by its own lock,
 * lease-counted). Nothing to do in the medium tier, or when TEST_JMAP_SESSION_URL names a server
 * someone else runs.
 */
export function ensureCyrus(): Promise<void> {
  if (fake || process.env.CRM_TEST_EXTERNAL_JMAP === '1') return Promise.resolve();
  return (cyrusReady ??= (async () => {
    const runId = process.env[HANDOVER.runId];
    const root = process.env[HANDOVER.tmpRoot] ?? testEnv.tmpRoot;
    if (!runId || !root) throw new Error('no test run environment (global setup did not run?)');
    // Written first: a start that fails half-way may still have taken the lease, which the teardown gives back.
    fs.writeFileSync(cyrusLeaseMarker(root), runId);
    const env = { ...process.env, JMAP_LEASE: runId, JMAP_KEEP: process.env.TEST_KEEP_JMAP === '1' ? '1' : '0' };
    const { stdout, stderr } = await promisify(execFile)('bash', [path.join(repoRoot, 'scripts/jmap/start.sh')], { env, timeout: 600_000 });
    if (process.env.TEST_JMAP_VERBOSE) process.stderr.write(stdout + stderr);
  })().catch((err: unknown) => {
    cyrusReady = undefined;
    throw err;
  }));
}

const IMPORT = /(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;
/** What only a test that talks to the mail server uses. */
const MAIL_MODULES = ['test/support/imap.ts', 'test/support/relay-log.ts'];
const scanned = new Map<string, boolean>();

/** Whether a test file, through the test modules it imports, reaches the mail server's fixtures. */
export function needsCyrus(file: string, seen = new Set<string>()): boolean {
  const abs = path.resolve(file);
  const known = scanned.get(abs);
  if (known !== undefined) return known;
  if (seen.has(abs)) return false;
  seen.add(abs);
  const rel = path.relative(repoRoot, abs);
  let result = MAIL_MODULES.includes(rel);
  if (!result && rel.startsWith('test/') && fs.existsSync(abs)) {
    const text = fs.readFileSync(abs, 'utf8');
    // The scripts of the test server, or the users start.sh creates on it (alice@, bob@, carol@example.test).
    result = /scripts\/jmap\/|\b(?:alice|bob|carol)pw\b/.test(text);
    for (const m of text.matchAll(IMPORT)) {
      if (result) break;
      const target = path.resolve(path.dirname(abs), (m[1] ?? m[2]).replace(/\.js$/, '.ts'));
      result = needsCyrus(target, seen);
    }
  }
  scanned.set(abs, result);
  return result;
}
