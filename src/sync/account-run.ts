/**
 * The plan of one sync run of one leased account: the order of its steps (write-back of read state,
 * full or incremental sync, resync when the server cannot calculate changes). What the run works
 * with and has done so far is its RunState (run-state.ts).
 */
import { JmapMethodError } from '../jmap/index.js';
import { fullSync } from './full-sync.js';
import { incrementalSync } from './incremental-sync.js';
import type { RunState } from './run-state.js';

/** The steps of a run, in order. `pushReadState` retries read-state write-backs that failed earlier. */
export async function runAccount(run: RunState, pushReadState: () => Promise<void>): Promise<void> {
  await pushReadState();
  run.throwIfStopping();
  const since = run.lease.emailState;
  if (since !== null) {
    try {
      await incrementalSync(run, since);
      return;
    } catch (err) {
      if (!(err instanceof JmapMethodError && err.type === 'cannotCalculateChanges')) throw err;
      run.logger.info('mail server cannot calculate changes; resyncing in full', { accountId: run.lease.account.id });
    }
  }
  const { changedMeanwhile } = await fullSync(run);
  // Replays what changed on the server while the full sync was paging (the next check would too,
  // but a new account should be complete when its first run ends).
  if (changedMeanwhile) await incrementalSync(run, run.lease.emailState!);
}
