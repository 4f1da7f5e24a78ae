/**
 * The medium tier's global setup (.mocharc.medium.json): the run's throwaway PostgreSQL, migrated once
 * and cloned per worker, as in the end-to-end tier (global-setup.ts), and in each test process the
 * in-process JMAP fake instead of Cyrus (test/support/jmap-fake/). No build, no root, no Cyrus, no
 * spawned process: a file of this tier runs in seconds (CONTRIBUTING.md, "Tests").
 */
import { setupRunDatabase, teardownRunDatabase } from './global-setup.js';
import { startFakeMailServer, stopFakeMailServer } from './mail-server.js';
import { ownWorkerEnvironment } from './worker-environment.js';

export async function mochaGlobalSetup(): Promise<void> {
  await setupRunDatabase();
}

export const mochaHooks = {
  async beforeAll(): Promise<void> {
    // test/support/cli.ts refuses to spawn crm-admin in this tier.
    process.env.CRM_TEST_TIER = 'medium';
    await ownWorkerEnvironment();
    await startFakeMailServer();
  },
};

export async function mochaGlobalTeardown(): Promise<void> {
  await stopFakeMailServer();
  await teardownRunDatabase();
}
