/**
 * StrykerJS on the medium tier (npm run test:stryker:medium): starts the tier's throwaway PostgreSQL once
 * (test/support/global-setup.ts), runs Stryker with STRYKER_TIER=medium (stryker.config.mjs) against
 * it, and stops it whatever Stryker's outcome. Arguments go to Stryker, e.g.
 *   npm run test:stryker:medium -- --mutate src/sync/run-state.ts
 * Each of Stryker's test-runner processes sets itself up on its first run
 * (test/support/stryker-medium-hooks.ts). Minutes per file on two cores: not part of npm test or CI.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { scratchDirPrefix, setupRunDatabase, teardownRunDatabase } from '../test/support/global-setup.js';
import { RUNNER_PIDS } from '../test/support/stryker-medium-hooks.js';
import { testEnv } from '../test/support/test-env.js';

await setupRunDatabase();
let status = 1;
try {
  const stryker = spawn('npx', ['stryker', 'run', ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, STRYKER_TIER: 'medium', TEST_DATABASE_URL: testEnv.databaseUrl, STRYKER_MEDIUM_RUN_DIR: testEnv.tmpRoot },
  });
  status = await new Promise<number>((resolve) => stryker.on('exit', (code) => resolve(code ?? 1)));
} finally {
  // Each runner process's scratch directory in /tmp, named by its pid (global-setup.ts, scratchDirPrefix).
  const listed = path.join(testEnv.tmpRoot!, RUNNER_PIDS);
  const prefixes = (fs.existsSync(listed) ? fs.readFileSync(listed, 'utf8').split('\n').filter(Boolean) : []).map(scratchDirPrefix);
  for (const name of fs.readdirSync('/tmp')) {
    if (prefixes.some((prefix) => name.startsWith(prefix))) fs.rmSync(path.join('/tmp', name), { recursive: true, force: true });
  }
  await teardownRunDatabase();
}
process.exit(status);
