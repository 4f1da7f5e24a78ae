/**
 * Root hooks (loaded through .mocharc's `require`): in a worker of a parallel run, each file's wall time,
 * its hooks included (a before() that starts a server counts), left in the run's temp directory for the
 * summary reporter to list. The workers' events reach the main process only once a file is done, so the
 * reporter cannot time them itself; a serial run is timed by the reporter from its suite events.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Context } from 'mocha';
import { HANDOVER } from './worker-environment.js';

let started = 0;

/** The files this run of the root suite holds (one per run in a worker). */
function filesOf(ctx: Context): string[] {
  const root = ctx.test?.parent;
  return [...new Set((root?.suites ?? []).map((s) => s.file).filter((f): f is string => Boolean(f)))];
}

export const mochaHooks = {
  beforeAll(): void {
    started = Date.now();
  },
  afterAll(this: Context): void {
    const root = process.env[HANDOVER.tmpRoot];
    if (process.env.MOCHA_WORKER_ID === undefined || !root) return;
    const dir = path.join(root, 'file-times');
    fs.mkdirSync(dir, { recursive: true });
    const ms = Date.now() - started;
    const lines = filesOf(this).map((file) => JSON.stringify({ file, ms }) + '\n');
    fs.appendFileSync(path.join(dir, `${process.pid}.jsonl`), lines.join(''));
  },
};
