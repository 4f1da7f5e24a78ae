/**
 * One account's resync pass: every email outside Trash, Junk and Drafts read again, page by page, in
 * the full sync's order (newest first), and written through the sync's own BatchWriter. The upsert
 * keyed on the JMAP id refreshes a stored row (filling the columns later releases added: addresses with
 * Cc and Reply-To, participants of every address header) and never doubles it; contacts the user
 * deleted stay deleted (contact_suppressions), erased addresses stay out (the writer's gate), read
 * state the CRM has not told the server yet stays (read_pending), contacts keep their names and notes.
 *
 * Unlike a full sync it records nothing as seen (unless one is under way) and sweeps nothing: it only refreshes, and leaves
 * deletions to the regular sync. Paced: one page, then a pause. Each page commits with the pass's
 * position (resync_progress), and no JMAP call runs inside that transaction.
 */
import { JmapMethodError, type JmapClient } from '../jmap/index.js';
import type { Logger } from '../logging/logger.js';
import type { AccountLease } from './account-lease.js';
import { normalizeAddress } from './address-rules.js';
import type { BatchWriter } from './batch-writer.js';
import { mapEmail } from './email-mapper.js';
import { fetchMailboxesAndState, fetchPage, type Page } from './jmap-sync-calls.js';
import type { ResyncProgress, ResyncRepository } from './resync-repository.js';

/** The anchor email vanished between runs or pages: the pass goes on from the top, a bounded number of times. */
const MAX_ANCHOR_RESTARTS = 3;

export interface ResyncPacing {
  /** Emails per Email/query + Email/get page (narrowed to the server's maxObjectsInGet). */
  pageSize: number;
  /** Pause after each page, so the mail server serves its users meanwhile. */
  pauseMs: number;
  /** Stop after this many pages in this run (the next run continues). */
  maxPages?: number;
}

export interface ResyncPageEvent {
  accountId: string;
  email: string;
  /** Pages committed by this pass in all (earlier runs included). */
  pagesDone: number;
  emailsDone: number;
  /** Emails the server counts in all, when it says. */
  total?: number;
}

export interface PassStats {
  pages: number;
  fetched: number;
  stored: number;
  emailsCreated: number;
  deleted: number;
  contactsCreated: number;
}

export interface PassContext {
  lease: AccountLease;
  client: JmapClient;
  writer: BatchWriter;
  progress: ResyncRepository;
  logger: Logger;
  signal: AbortSignal;
  onPage?: (event: ResyncPageEvent) => void;
  /** Filled page by page, so a caller still has the counts of what committed when the pass fails. */
  stats: PassStats;
}

/** Answers how far it got: 'finished' (the end was reached), 'paused' (maxPages), or 'interrupted' (signal). */
export async function resyncPass(ctx: PassContext, start: ResyncProgress, pacing: ResyncPacing): Promise<'finished' | 'paused' | 'interrupted'> {
  const { lease, client, writer, signal, stats } = ctx;
  const account = lease.account;
  const { roles } = await fetchMailboxesAndState(client, account.jmapAccountId, signal);
  const { maxObjectsInGet } = await client.limits();
  const limit = Math.max(1, Math.min(pacing.pageSize, maxObjectsInGet));
  const ownAddresses = new Set([account.email, account.jmapAccountId].map(normalizeAddress).filter((a): a is string => a !== null));
  let { anchor, pagesDone, emailsDone } = start;
  let restarts = 0;
  for (;;) {
    if (signal.aborted) return 'interrupted';
    let page: Page;
    try {
      page = await fetchPage({ client, accountId: account.jmapAccountId, signal }, roles, anchor, limit);
    } catch (err) {
      if (!(err instanceof JmapMethodError && err.type === 'anchorNotFound' && restarts < MAX_ANCHOR_RESTARTS)) throw err;
      // Pages already done are read again: a refresh changes nothing the second time.
      restarts++;
      ctx.logger.info('resync anchor gone from the server; continuing from the top', { accountId: account.id });
      await ctx.progress.forgetAnchor(account.id);
      anchor = null;
      continue;
    }
    if (page.ids.length === 0) {
      await ctx.progress.finish(account.id);
      return 'finished';
    }
    const last = page.ids[page.ids.length - 1];
    const finished = !page.more;
    const emails = page.emails.map((e) => mapEmail(e, { roles, ownAddresses }));
    // The lease is renewed and checked by the writer in the same transaction (checkpoint {} moves nothing else).
    const result = await writer.apply({
      emails,
      checkpoint: {},
      alongside: (tx) => ctx.progress.pageDone(account.id, { anchor: last, emails: page.emails.length, finished }, tx),
    });
    anchor = last;
    pagesDone++;
    emailsDone += page.emails.length;
    stats.pages++;
    stats.fetched += page.emails.length;
    stats.stored += result.stored;
    stats.emailsCreated += result.emailsCreated;
    stats.deleted += result.deleted;
    stats.contactsCreated += result.contactsCreated;
    ctx.onPage?.({ accountId: account.id, email: account.email, pagesDone, emailsDone, total: page.total });
    if (finished) return 'finished';
    if (pacing.maxPages !== undefined && stats.pages >= pacing.maxPages) return 'paused';
    await pause(pacing.pauseMs, signal);
  }
}

/** Resolves after `ms`, or at once when the signal fires (the loop then stops). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
