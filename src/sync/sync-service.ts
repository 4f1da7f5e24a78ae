/**
 * The mail sync as a service: the scheduler's runner (runDueAccounts, shutdown), the API's "sync now"
 * (requestSync) and crm-admin's `sync run|status` (syncAccount, syncAll, statusList). Several
 * processes may run it against one database; leases in mail_sync_states keep them off each other's
 * accounts.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { AccountLease } from './account-lease.js';
import { recordMetrics, runLeased } from './leased-run.js';
import type { SyncTuning } from './run-state.js';
import { SyncInterruptedError } from './sync-errors.js';
import type { SyncStatusRow } from './sync-repository.js';
import type { SyncRunner } from './sync-scheduler.js';
import { skippedResult, type RunOptions, type SyncResult, type SyncServiceDeps, type SyncServiceOptions } from './sync-types.js';

export type * from './sync-types.js';

export class SyncService implements SyncRunner {
  readonly instanceId: string;
  private readonly tuning: SyncTuning;
  private readonly leaseSeconds: number;
  private readonly concurrency: number;
  /** Runs of this process by account: a second request for a running account is skipped here already. */
  private readonly running = new Map<string, Promise<SyncResult>>();
  private readonly background = new Set<Promise<unknown>>();
  private readonly abort = new AbortController();
  private stopping = false;

  constructor(
    private readonly deps: SyncServiceDeps,
    options: SyncServiceOptions = {},
  ) {
    this.instanceId = options.instanceId ?? `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.tuning = { batchSize: options.batchSize ?? 500, maxChanges: options.maxChanges ?? 500 };
    this.leaseSeconds = options.leaseSeconds ?? 120;
    this.concurrency = Math.max(1, options.concurrency ?? 2);
  }

  /**
   * The scheduler's tick: every active account whose turn it is (DUE_CONDITION in sync-repository.ts).
   * `accountIds` narrows the tick to some accounts (crm-admin, tests sharing one database).
   */
  async runDueAccounts(scope: { accountIds?: string[] } = {}): Promise<SyncResult[]> {
    if (this.stopping) return [];
    await this.deps.repository.ensureStateRows();
    const due = await this.deps.repository.dueAccountIds(scope.accountIds ?? null);
    return this.pool(due, (id) => this.runOne(id, { dueOnly: true }));
  }

  /** Syncs one account now, backoff or not (crm-admin sync run --account). */
  syncAccount(accountId: string, options: RunOptions = {}): Promise<SyncResult> {
    return this.runOne(accountId, { dueOnly: false, ...options });
  }

  /** Every active account now; accounts stopped on wrong credentials only when asked to. */
  async syncAll(options: RunOptions & { includeAuthFailed?: boolean } = {}): Promise<SyncResult[]> {
    await this.deps.repository.ensureStateRows();
    const accounts = await this.deps.repository.activeAccountIds(options.includeAuthFailed === true);
    return this.pool(accounts, (id) => this.runOne(id, { dueOnly: false, onProgress: options.onProgress }));
  }

  /**
   * "Sync now" from the API: marks the account requested (any instance's next tick takes it) and
   * starts the sync in this process without waiting for it.
   */
  async requestSync(accountId: string): Promise<void> {
    await this.deps.repository.markRequested(accountId);
    if (this.stopping) return;
    const run = this.runOne(accountId, { dueOnly: true }).catch((err: unknown) => this.deps.logger.error('requested mail sync failed', { accountId, err }));
    this.background.add(run);
    void run.finally(() => this.background.delete(run));
  }

  /** Resolves when the syncs started by requestSync have finished (tests, graceful stop). */
  async whenIdle(): Promise<void> {
    while (this.background.size > 0 || this.running.size > 0) {
      await Promise.allSettled([...this.background, ...this.running.values()]);
    }
  }

  statusList(filter: { userId?: string } = {}): Promise<SyncStatusRow[]> {
    return this.deps.repository.statusList(filter);
  }

  /** SIGTERM: runs stop after the batch in progress (committed) and this resolves once they have. */
  async shutdown(): Promise<void> {
    this.stopping = true;
    // Abandons JMAP requests in flight; what they would have fetched is refetched next time.
    this.abort.abort(new SyncInterruptedError());
    await this.whenIdle();
  }

  private runOne(accountId: string, options: RunOptions & { dueOnly: boolean }): Promise<SyncResult> {
    if (this.stopping || this.running.has(accountId)) return Promise.resolve(skippedResult(accountId));
    const run = this.leaseAndRun(accountId, options).finally(() => this.running.delete(accountId));
    this.running.set(accountId, run);
    return run;
  }

  private async leaseAndRun(accountId: string, options: RunOptions & { dueOnly: boolean }): Promise<SyncResult> {
    const lease = await AccountLease.acquire(this.deps, accountId, this.instanceId, { leaseSeconds: this.leaseSeconds, dueOnly: options.dueOnly });
    if (!lease) {
      const skipped = skippedResult(accountId);
      recordMetrics(this.deps, skipped);
      return skipped;
    }
    return runLeased({ deps: this.deps, tuning: this.tuning, signal: this.abort.signal, stopping: () => this.stopping }, lease, options);
  }

  private async pool<T>(ids: string[], work: (id: string) => Promise<T>): Promise<T[]> {
    const results: T[] = [];
    let next = 0;
    const worker = async () => {
      while (next < ids.length && !this.stopping) {
        const id = ids[next++]!;
        results.push(await work(id));
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, ids.length) }, worker));
    return results;
  }
}
