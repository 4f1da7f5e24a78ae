import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let version: string | undefined;

/**
 * The release's semantic version, read from its package.json (found upwards from this file, in src/
 * or dist/src/). One source for `crm-admin --version`, the readiness answer, the metrics build info
 * and the backup header, so they can never disagree.
 */
export function releaseVersion(): string {
  if (version) return version;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5 && !version; i++, dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'staff-crm') version = pkg.version;
    } catch {
      /* not here */
    }
  }
  version ??= 'unknown';
  return version;
}
