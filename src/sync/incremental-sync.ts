/**
 * Later runs: Email/changes from the stored state, a page of at most maxChanges at a time, each page
 * committed together with its new state. Updated emails are fetched whole: their read state
 * ($seen) or mailboxes changed, and an email moved out of Trash must be inserted.
 */
import type { MailboxRoles } from './email-mapper.js';
import { mapEmail } from './email-mapper.js';
import { fetchChanges } from './jmap-sync-calls.js';
import type { RunState } from './run-state.js';

export async function incrementalSync(run: RunState, sinceState: string): Promise<void> {
  const { client, writer } = run;
  const { maxObjectsInGet } = await client.limits();
  // Every created id is fetched by one Email/get: keep a page within maxObjectsInGet.
  const maxChanges = Math.max(1, Math.min(run.options.maxChanges, maxObjectsInGet));
  let state = sinceState;
  let roles: MailboxRoles | undefined;
  run.stats.mode = run.stats.mode === 'full' ? 'full' : 'incremental';
  for (;;) {
    const batch = await fetchChanges({ client, accountId: run.jmapAccountId, signal: run.signal }, state, maxChanges, roles === undefined);
    roles ??= batch.roles!;
    const unchanged = batch.emails.length === 0 && batch.destroyed.length === 0 && batch.newState === state;
    if (!unchanged) {
      const context = { roles, ownAddresses: run.ownAddresses };
      const result = await writer.apply({
        emails: batch.emails.map((e) => mapEmail(e, context)),
        destroyed: batch.destroyed,
        checkpoint: { emailState: batch.newState },
      });
      run.record(batch.emails.length, result, true);
      await run.progress('incremental');
    }
    state = batch.newState;
    if (!batch.hasMoreChanges) return;
    run.throwIfStopping();
  }
}
