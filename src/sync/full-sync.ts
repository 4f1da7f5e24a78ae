/**
 * First sync (or resync): everything outside Trash, Junk and Drafts, page by page. The Email state
 * is read BEFORE the first page, so the incremental sync that follows replays whatever changed while
 * paging. Each page commits with its checkpoint (the query anchor); a crashed or stopped full sync
 * resumes after the last committed page. Pages are fetched ahead while earlier ones are written
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
  let checkpoint: FullSyncCheckpoint = resumable ? lease.fullSync! : { state, anchor: null, jmapAccountId: run.jmapAccountId };
  // The first page is on its way while the generation is written.
  queue.start(checkpoint.anchor);
  if (resumable) {
    run.logger.info('resuming full mail sync', { accountId: lease.account.id });
  } else {
    // A new generation: rows this pass does not see again are removed at its end.
    await writer.apply({ emails: [], checkpoint: { fullSync: checkpoint, emailState: null, generation: lease.generation + 1 } });
    writer.expectNewEmails = await writer.mailboxIsEmpty();
  }
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

  // Complete: the state read at the start becomes the incremental starting point. A pass that began
  // on an empty mailbox and inserted every email without a collision left no row of an earlier
  // generation behind (a sent email stored meanwhile carries this one), so there is nothing to sweep.
  const result = await writer.apply({
    emails: [],
    checkpoint: { emailState: checkpoint.state, fullSync: null },
    sweepGeneration: writer.expectNewEmails ? undefined : lease.generation,
  });
  run.record(0, result);
  // The last page was read in the state the pass started from: nothing changed while it paged.
  return { changedMeanwhile: lastState === undefined || lastState !== checkpoint.state };
}
