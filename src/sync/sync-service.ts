/**
 * The mail sync as a service: the scheduler's runner (runDueAccounts, shutdown), the API's "sync now"
 * (requestSync) and crm-admin's `sync run` (syncAccount, syncAll); `sync status` reads SyncStatusService. Several
 * processes may run it against one database; leases in mail_sync_states keep them off each other's
 * accounts, and due accounts are taken from one queue (SKIP LOCKED), so together they cover every
 * account once per turn.
 */
import { AccountLease, type LeaseOptions } from './account-lease.js';
import { newInstanceId } from './lease-holder.js';
import { recordMetrics, runLeased, type LeasedRunContext } from './leased-run.js';
import { SyncClients } from './sync-clients.js';
import { SyncInterruptedError } from './sync-errors.js';
import type { SyncSnapshot } from './sync-repository.js';
import { DEFAULT_INTERVAL_SECONDS } from './sync-schedule.js';
import { skippedResult, type RunOptions, type SyncResult, type SyncServiceDeps, type SyncServiceOptions } from './sync-types.js';

export type * from './sync-types.js';

export class SyncService {
  readonly instanceId: string;
  readonly intervalSeconds: number;
  private readonly concurrency: number;
  private readonly lease: LeaseOptions;
  private readonly context: LeasedRunContext;
  /** Runs of this process by account: a second request for a running account is skipped here already. */
  private readonly running = new Map<string, Promise<SyncResult>>();
  private readonly background = new Set<Promise<unknown>>();
  private readonly abort = new AbortController();
  /** Workers of runDueAccounts now pulling from the queue; never more than `concurrency`. */
  private workers = 0;
  private stopping = false;
  private readonly runRequestsHere: boolean;

  constructor(
    private readonly deps: SyncServiceDeps,
    options: SyncServiceOptions = {},
  ) {
    this.instanceId = options.instanceId ?? newInstanceId(options.role ?? 'serve');
    this.concurrency = Math.max(1, options.concurrency ?? 2);
    this.intervalSeconds = options.intervalSeconds ?? DEFAULT_INTERVAL_SECONDS;
    this.runRequestsHere = options.runRequestsHere ?? true;
    this.lease = { leaseSeconds: options.leaseSeconds ?? 120, schedule: { intervalMs: this.intervalSeconds * 1000 } };
    this.context = {
      deps,
      clients: new SyncClients(deps.clientFor),
      tuning: { batchSize: options.batchSize ?? 500, maxChanges: options.maxChanges ?? 500, prefetchPages: Math.max(1, options.prefetchPages ?? 2) },
      signal: this.abort.signal,
      stopping: () => this.stopping,
    };
  }

  /**
   * The scheduler's tick: fills this process's free workers, each taking due accounts from the queue
   * until none is left, and resolves with what they ran. Safe to call while earlier calls still run
   * (a long first sync occupies one worker, the others keep serving the turns of everyone else).
   * `accountIds` narrows the queue (crm-admin, tests sharing one database).
   */
  async runDueAccounts(scope: { accountIds?: string[] } = {}): Promise<SyncResult[]> {
    if (this.stopping) return [];
    await this.deps.repository.ensureStateRows();
    const results: SyncResult[] = [];
    const free = Math.max(0, this.concurrency - this.workers);
    await Promise.all(Array.from({ length: free }, () => this.worker(scope.accountIds ?? null, results)));
    return results;
  }

  /** Syncs one account now, backoff or not (crm-admin sync run --account). */
  syncAccount(accountId: string, options: RunOptions = {}): Promise<SyncResult> {
    return this.runOne(accountId, { dueOnly: false, ...options });
  }

  /** Every active account now; accounts stopped on wrong credentials only when asked to. */
  async syncAll(options: RunOptions & { includeAuthFailed?: boolean } = {}): Promise<SyncResult[]> {
    await this.deps.repository.ensureStateRows();
    const accounts = await this.deps.repository.activeAccountIds(options.includeAuthFailed === true);
    const results: SyncResult[] = [];
    let next = 0;
    const worker = async () => {
      while (next < accounts.length && !this.stopping) {
        results.push(await this.runOne(accounts[next++], { dueOnly: false, onProgress: options.onProgress }));
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, accounts.length) }, worker));
    return results;
  }

  /**
   * "Sync now" (EmailAccountService): marks the account requested (any instance's next tick takes it)
   * and, unless told otherwise (runRequestsHere), starts the sync in this process without waiting for it.
   */
  async requestSync(accountId: string): Promise<void> {
    await this.deps.repository.markRequested(accountId);
    if (this.stopping || !this.runRequestsHere) return;
    this.inBackground(this.runOne(accountId, { dueOnly: true }), accountId);
  }

  private inBackground(work: Promise<unknown>, accountId: string): void {
    const run = work.catch((err: unknown) => this.deps.logger.error('requested mail sync failed', { accountId, err }));
    this.background.add(run);
    void run.finally(() => this.background.delete(run));
  }

  /**
   * After a run that held the lease: a "sync now" that came while it ran (here, or on another
   * instance, whose own try found the lease taken) is still marked requested (the lease cleared the
   * mark when it was taken), so it runs now instead of waiting for a later turn (issue 45).
   */
  private async rerunIfRequested(accountId: string, result: SyncResult): Promise<void> {
    if (result.outcome === 'skipped' || this.stopping || !this.runRequestsHere || this.running.has(accountId)) return;
    if (await this.deps.repository.isRequested(accountId)) this.inBackground(this.runOne(accountId, { dueOnly: true }), accountId);
  }

  /** Resolves when the syncs started by requestSync have finished (tests, graceful stop). */
  async whenIdle(): Promise<void> {
    while (this.background.size > 0 || this.running.size > 0) {
      await Promise.allSettled([...this.background, ...this.running.values()]);
    }
  }

  /** SIGTERM: runs stop after the batch in progress (committed) and this resolves once they have. */
  async shutdown(): Promise<void> {
    this.stopping = true;
    // Abandons JMAP requests in flight; what they would have fetched is refetched next time.
    this.abort.abort(new SyncInterruptedError());
    await this.whenIdle();
  }

  /** One worker: takes the next due account, syncs it, and again, until none is due. */
  private async worker(accountIds: string[] | null, results: SyncResult[]): Promise<void> {
    this.workers++;
    try {
      while (!this.stopping) {
        const lease = await AccountLease.claimNextDue(this.deps, this.instanceId, { ...this.lease, accountIds });
        if (!lease) return;
        results.push(await this.track(lease.account.id, runLeased(this.context, lease, {})));
      }
    } finally {
      this.workers--;
    }
  }

  private runOne(accountId: string, options: RunOptions & { dueOnly: boolean }): Promise<SyncResult> {
    if (this.stopping) return Promise.resolve(skippedResult(accountId, 'this process is stopping'));
    if (this.running.has(accountId)) return Promise.resolve(skippedResult(accountId, 'this process is syncing it already'));
    return this.track(accountId, this.leaseAndRun(accountId, options));
  }

  /** Registers a run of this process (whenIdle waits for it; requestSync skips its account meanwhile). */
  private track(accountId: string, run: Promise<SyncResult>): Promise<SyncResult> {
    const tracked = run.finally(() => {
      if (this.running.get(accountId) === tracked) this.running.delete(accountId);
    });
    this.running.set(accountId, tracked);
    // Registered at once, so whenIdle also waits for the follow-up run it may start.
    this.inBackground(
      // A run that failed outright is its caller's to report; only a finished run is followed up.
      tracked.then(
        (result) => this.rerunIfRequested(accountId, result),
        () => undefined,
      ),
      accountId,
    );
    return tracked;
  }

  private async leaseAndRun(accountId: string, options: RunOptions & { dueOnly: boolean }): Promise<SyncResult> {
    const lease = await AccountLease.acquire(this.deps, accountId, this.instanceId, { ...this.lease, dueOnly: options.dueOnly });
    if (!(lease instanceof AccountLease)) {
      const skipped = skippedResult(accountId, lease.refused);
      recordMetrics(this.deps, skipped);
      return skipped;
    }
    return runLeased(this.context, lease, options);
  }

  /** The crm_sync_* gauges, database-wide: every instance (API replica, worker) reports the same figures. */
  /** Due accounts, the oldest one's wait, expired leases: the sync's backlog as a background job (ADR 0145). */
  jobBacklog() {
    return this.deps.repository.jobBacklog();
  }

  snapshot(): Promise<SyncSnapshot> {
    return this.deps.repository.snapshot(this.intervalSeconds);
  }
}
