/**
 * First sync (or resync): everything outside Trash, Junk and Drafts, page by page. The Email state
 * is read BEFORE the first page, so the incremental sync that follows replays whatever changed while
 * paging. Each page commits with its checkpoint (the query anchor); a crashed or stopped full sync
 * resumes after the last committed page. The next page is fetched while the current one is written.
 */
import { JmapMethodError } from '../jmap/index.js';
import { mapEmail } from './email-mapper.js';
import { fetchMailboxesAndState, fetchPage, type Page } from './jmap-sync-calls.js';
import type { RunState } from './run-state.js';
import type { FullSyncCheckpoint } from './sync-repository.js';

/** Restarts from the top when the anchor email vanished between pages; bounded, in case it keeps happening. */
const MAX_ANCHOR_RESTARTS = 3;

export async function fullSync(run: RunState): Promise<void> {
  const { client, lease, writer } = run;
  const { roles, state } = await fetchMailboxesAndState(client, run.jmapAccountId, run.signal);
  let checkpoint = lease.fullSync;
  if (!checkpoint || checkpoint.jmapAccountId !== run.jmapAccountId) {
    checkpoint = { state, anchor: null, jmapAccountId: run.jmapAccountId };
    // A new generation: rows this pass does not see again are removed at its end.
    await writer.apply({ emails: [], checkpoint: { fullSync: checkpoint, emailState: null, generation: lease.generation + 1 } });
  } else {
    run.logger.info('resuming full mail sync', { accountId: lease.account.id });
  }
  run.stats.mode = 'full';

  const { maxObjectsInGet } = await client.limits();
  const limit = Math.max(1, Math.min(run.options.batchSize, maxObjectsInGet));
  const context = { roles, ownAddresses: run.ownAddresses };
  const fetchAfter = (anchor: string | null): Promise<Page> => {
    const page = fetchPage(client, run.jmapAccountId, roles, anchor, limit, run.signal);
    page.catch(() => {}); // awaited later, or abandoned when the run stops: never an unhandled rejection
    return page;
  };

  let anchor = checkpoint.anchor;
  let pending = fetchAfter(anchor);
  let restarts = 0;
  for (;;) {
    let page: Page;
    try {
      page = await pending;
    } catch (err) {
      if (!(err instanceof JmapMethodError && err.type === 'anchorNotFound' && anchor !== null && restarts < MAX_ANCHOR_RESTARTS)) throw err;
      restarts++;
      anchor = null;
      pending = fetchAfter(null);
      continue;
    }
    if (page.ids.length === 0) break;
    const last = page.ids[page.ids.length - 1]!;
    if (page.more) pending = fetchAfter(last);
    checkpoint = { ...(checkpoint as FullSyncCheckpoint), anchor: last };
    const result = await writer.apply({ emails: page.emails.map((e) => mapEmail(e, context)), checkpoint: { fullSync: checkpoint } });
    run.record(page.emails.length, result);
    await run.progress('full', page.total);
    if (!page.more) break;
    run.throwIfStopping();
    anchor = last;
  }

  // Complete: the state read at the start becomes the incremental starting point.
  const result = await writer.apply({
    emails: [],
    checkpoint: { emailState: checkpoint.state, fullSync: null },
    sweepGeneration: lease.generation,
  });
  run.record(0, result);
}
