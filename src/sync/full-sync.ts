/**
 * First sync (or resync): everything outside Trash, Junk and Drafts, page by page. The Email state
 * is read BEFORE the first page, so the incremental sync that follows replays whatever changed while
 * paging. Each page commits with its checkpoint (the query anchor); a crashed or stopped full sync
 * resumes after the last committed page. What it has seen is kept beside the pages (full_sync_seen),
 * so that at its end the rows it did not see are deleted without a write per row it did (docs/adr/0123).
 * Pages are fetched ahead while earlier ones are written
 * (page-queue.ts), so a first sync costs little more than fetching alone.
 */
import { JmapMethodError } from '../jmap/index.js';
import { mapEmail } from './email-mapper.js';
import { fetchMailboxesAndState, fetchPage, type Page } from './jmap-sync-calls.js';
import { PageQueue } from './page-queue.js';
import type { RunState } from './run-state.js';
import type { FullSyncCheckpoint } from './sync-repository.js';

/** Restarts from the top when the anchor email vanished between pages; bounded, in case it keeps happening. */
const MAX_ANCHOR_RESTARTS = 3;

/**
 * Answers whether mail may have changed on the server while the pass was paging (then the caller
 * replays the changes since the state the pass started from).
 */
export async function fullSync(run: RunState): Promise<{ changedMeanwhile: boolean }> {
  const { client, lease, writer } = run;
  const { roles, state } = await fetchMailboxesAndState(client, run.jmapAccountId, run.signal);
  const { maxObjectsInGet } = await client.limits();
  const limit = Math.max(1, Math.min(run.options.batchSize, maxObjectsInGet));
  const context = { roles, ownAddresses: run.ownAddresses };
  const queue = new PageQueue((anchor) => fetchPage({ client, accountId: run.jmapAccountId, signal: run.signal }, roles, anchor, limit), run.options.prefetchPages);

  const resumable = lease.fullSync !== null && lease.fullSync.jmapAccountId === run.jmapAccountId;
  let checkpoint: FullSyncCheckpoint;
  if (resumable) {
    checkpoint = lease.fullSync!;
    run.logger.info('resuming full mail sync', { accountId: lease.account.id });
  } else {
    // What this pass sees is recorded (full_sync_seen) and the rest swept at its end; a pass that
    // begins on an empty mailbox has nothing to sweep (docs/adr/0123).
    const startedEmpty = await writer.mailboxIsEmpty();
    checkpoint = { state, anchor: null, jmapAccountId: run.jmapAccountId, startedEmpty };
    await writer.apply({ emails: [], checkpoint: { fullSync: checkpoint, emailState: null }, seen: 'forget' });
    writer.expectNewEmails = startedEmpty;
  }
  // Only once the start has committed: a row another writer stores from now on is marked seen, and
  // one stored before is of mail already on the server, which this query then finds.
  queue.start(checkpoint.anchor);
  run.stats.mode = 'full';

  let restarts = 0;
  let lastState: string | undefined;
  for (;;) {
    let page: Page | null;
    try {
      page = await queue.next();
    } catch (err) {
      if (!(err instanceof JmapMethodError && err.type === 'anchorNotFound' && restarts < MAX_ANCHOR_RESTARTS)) throw err;
      restarts++;
      queue.start(null);
      continue;
    }
    if (!page || page.ids.length === 0) break;
    lastState = page.state;
    // Committed together with the page: a resumed sync continues after it, never skipping one.
    checkpoint = { ...checkpoint, anchor: page.ids[page.ids.length - 1] };
    const result = await writer.apply({ emails: page.emails.map((e) => mapEmail(e, context)), checkpoint: { fullSync: checkpoint } });
    run.record(page.emails.length, result);
    await run.progress('full', page.total);
    if (!page.more) break;
    run.throwIfStopping();
  }

  // Complete: the state read at the start becomes the incremental starting point, and the rows this
  // pass did not see (gone from the server, or out of reach) go. A pass that began on an empty mailbox
  // wrote every row there is itself (a sent email stored meanwhile included): it only forgets.
  const result = await writer.apply({
    emails: [],
    checkpoint: { emailState: checkpoint.state, fullSync: null },
    seen: checkpoint.startedEmpty === true ? 'forget' : 'sweep',
  });
  run.record(0, result);
  // The last page was read in the state the pass started from: nothing changed while it paged.
  return { changedMeanwhile: lastState === undefined || lastState !== checkpoint.state };
}
