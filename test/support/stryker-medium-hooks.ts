/**
 * The medium tier's setup for StrykerJS (`npm run test:stryker:medium`, scripts/stryker-medium.ts).
 * Stryker's mocha runner keeps one mocha instance per test-runner process and runs it once per mutant;
 * it runs root hooks but not mocha's global setup (medium-setup.ts). So each runner process sets up
 * once, on its first run: the run's database on the PostgreSQL server the wrapper started
 * (TEST_DATABASE_URL: one server for every runner process, not one each), migrated and cloned for
 * this process as a worker of the tier, and the in-process JMAP fake. The wrapper stops the server,
 * and every database of the run with it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { setupRunDatabase } from './global-setup.js';
import { startFakeMailServer } from './mail-server.js';
import { ownWorkerEnvironment } from './worker-environment.js';

/** The file in the wrapper's run directory that lists the pid of each runner process. */
export const RUNNER_PIDS = 'runner-pids';

let ready: Promise<void> | undefined;

async function setUpOnce(): Promise<void> {
  if (!process.env.TEST_DATABASE_URL || !process.env.STRYKER_MEDIUM_RUN_DIR)
    throw new Error('the medium tier under Stryker runs through npm run test:stryker:medium, which starts its PostgreSQL');
  process.env.CRM_TEST_TIER = 'medium';
  // Stryker ends its runner processes without an exit hook to run, some while they still set up: the
  // wrapper removes the scratch directories in /tmp of the processes listed here, by pid, before they
  // make one (the server's databases go with the server).
  fs.appendFileSync(path.join(process.env.STRYKER_MEDIUM_RUN_DIR, RUNNER_PIDS), `${process.pid}\n`);
  await setupRunDatabase();
  await ownWorkerEnvironment();
  await startFakeMailServer();
}

export const mochaHooks = {
  beforeAll(): Promise<void> {
    ready ??= setUpOnce();
    return ready;
  },
};
