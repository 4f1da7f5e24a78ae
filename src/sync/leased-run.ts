/**
 * Runs one account whose lease this process holds, and records how it went: the status row
 * (ok / error with backoff / auth_failed / released), metrics and one log line.
 */
import { type JmapClient, JmapAuthError, JmapTimeoutError, JmapUnreachableError } from '../jmap/index.js';
import type { EmailAccount } from '../models/index.js';
import type { AccountLease } from './account-lease.js';
import { runAccount } from './account-run.js';
import { describeHolder } from './lease-holder.js';
import { BatchWriter } from './batch-writer.js';
import { emptyStats, RunState, type SyncTuning } from './run-state.js';
import type { SyncClients } from './sync-clients.js';
import { backoffMinutes, describeFailure, SyncInterruptedError, SyncSupersededError } from './sync-errors.js';
import type { RunOptions, SyncOutcome, SyncResult, SyncServiceDeps } from './sync-types.js';

export interface LeasedRunContext {
  deps: SyncServiceDeps;
  /** The accounts' JMAP clients, kept between runs (sync-clients.ts). */
  clients: SyncClients;
  tuning: SyncTuning;
  signal: AbortSignal;
  stopping: () => boolean;
}

export async function runLeased(ctx: LeasedRunContext, lease: AccountLease, options: RunOptions): Promise<SyncResult> {
  const { deps } = ctx;
  const started = Date.now();
  let client: JmapClient | undefined;
  let requestsBefore = 0;
  let run: RunState | undefined;
  const result = (outcome: SyncOutcome, error?: string, failureReason?: string): SyncResult => ({
    accountId: lease.account.id,
    email: lease.account.email,
    outcome,
    ...(run?.stats ?? emptyStats()),
    requests: client ? client.requestCount - requestsBefore : 0,
    durationMs: Date.now() - started,
    error,
    failureReason,
  });
  if (lease.takenOver) {
    // The holder stopped renewing (crashed, killed, hung): the operator wants to know which one.
    const { holder, expiredAt } = lease.takenOver;
    deps.logger.warn('mail sync lease taken over', { accountId: lease.account.id, from: holder, fromHolder: describeHolder(holder), expiredAt, by: lease.owner });
  }
  let outcome: SyncResult;
  try {
    client = ctx.clients.for(lease.account);
    requestsBefore = client.requestCount;
    const writer = new BatchWriter(deps.mailStore, deps.transactions, lease, deps.admission?.forRun());
    run = new RunState({ lease, client, writer, options: ctx.tuning, logger: deps.logger, signal: ctx.signal, stopping: ctx.stopping, onProgress: options.onProgress });
    await runAccount(run, () => pushReadState(deps, lease.account));
    await lease.finish({ outcome: 'ok' });
    outcome = result('ok');
  } catch (err) {
    // The session or the connection may be what failed: the next run starts with a new client.
    ctx.clients.forget(lease.account.id);
    outcome = await recordFailure(deps, lease, err, result);
  }
  recordMetrics(deps, outcome, run?.lagSeconds);
  const { accountId, durationMs, fetched, stored, deleted, requests, mode } = outcome;
  const dueAt = lease.dueAt?.toISOString() ?? null;
  deps.logger.info('mail sync run', { accountId, outcome: outcome.outcome, mode, fetched, stored, deleted, requests, durationMs, dueAt });
  return outcome;
}

async function recordFailure(deps: SyncServiceDeps, lease: AccountLease, err: unknown, result: (o: SyncOutcome, e?: string, r?: string) => SyncResult): Promise<SyncResult> {
  const accountId = lease.account.id;
  try {
    if (err instanceof SyncInterruptedError || err instanceof SyncSupersededError) {
      deps.logger.info('mail sync stopped early', { accountId, reason: err.message });
      await lease.finish({ outcome: 'released' });
      return result('interrupted');
    }
    const failure = describeFailure(err);
    deps.logger.warn('mail sync failed', { accountId, err });
    if (failure.kind === 'auth') {
      await lease.finish({ outcome: 'auth_failed', message: failure.message });
      return result('auth_failed', failure.message, failure.reason);
    }
    await lease.finish({ outcome: 'error', message: failure.message, backoffMinutes: backoffMinutes(lease.consecutiveFailures + 1) });
    return result('error', failure.message, failure.reason);
  } catch (finishErr) {
    // The database is gone too: the lease simply expires and the next run retries.
    deps.logger.error('mail sync could not record its outcome', { accountId, err: finishErr });
    return result('error', describeFailure(err).message, 'database');
  }
}

/**
 * Read-state changes that could not reach the server earlier go first. When the server is down or
 * refuses the credentials the run stops the same way the sync itself would; any other failure
 * leaves the rows pending (the sync does not overwrite them) and the sync goes on.
 */
async function pushReadState(deps: SyncServiceDeps, account: EmailAccount): Promise<void> {
  // The ReadStatePusher (src/emails/read-state-pusher.ts) call site, wired in src/app/wiring/mail.ts.
  if (!deps.readState) return;
  try {
    await deps.readState.push(account);
  } catch (err) {
    if (err instanceof JmapAuthError || err instanceof JmapUnreachableError || err instanceof JmapTimeoutError) throw err;
    deps.logger.warn('read state write-back failed; will retry next run', { accountId: account.id, err });
  }
}

export function recordMetrics(deps: SyncServiceDeps, result: SyncResult, lagSeconds: number[] = []): void {
  const metrics = deps.metrics;
  if (!metrics) return;
  if (result.requests > 0) metrics.syncJmapRequests.inc(result.requests);
  for (const seconds of lagSeconds) metrics.syncLag.observe(seconds);
  if (result.outcome === 'interrupted') return;
  metrics.recordSyncRun(result.outcome, result.durationMs / 1000, result.failureReason);
  if (result.emailsCreated > 0) metrics.syncItems.inc({ kind: 'email' }, result.emailsCreated);
  if (result.contactsCreated > 0) metrics.syncItems.inc({ kind: 'contact' }, result.contactsCreated);
}
