#!/usr/bin/env node
// npm runs `prepare` after every `npm install`/`npm ci`. In a development checkout it builds dist/ with
// tsc. On a release (dist/ already built, `npm ci --omit=dev`) TypeScript is not installed: skip the
// build instead of failing the install.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
try {
  require.resolve('typescript/package.json');
} catch {
  console.log('prepare: typescript is not installed (production install); using the prebuilt dist/');
  process.exit(0);
}
const res = spawnSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
process.exit(res.status ?? 1);
