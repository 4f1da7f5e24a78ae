/**
 * A private scratch directory for unit tests, which run without the global setup (and so without
 * testEnv.tmpRoot). One per process, removed when the process exits.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

let root: string | undefined;

/** `<tmp>/crm-unit-<random>/<name>`, not created: callers that need it create it (or let the code do). */
export function unitTempPath(name: string): string {
  if (!root) {
    const created = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-unit-'));
    root = created;
    process.once('exit', () => fs.rmSync(created, { recursive: true, force: true }));
  }
  return path.join(root, name);
}
