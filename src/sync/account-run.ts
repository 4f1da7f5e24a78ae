/**
 * One sync run of one leased account: what it works with, what it has done so far, and the order
 * of its steps (write-back of read state, full or incremental sync, resync when the server cannot
 * calculate changes).
 */
import type { JmapClient } from '../jmap/client.js';
import { JmapMethodError } from '../jmap/errors.js';
import type { Logger } from '../logging/logger.js';
import type { AccountLease } from './account-lease.js';
import type { BatchResult, BatchWriter } from './batch-writer.js';
import { normalizeAddress } from './address-rules.js';
import { fullSync } from './full-sync.js';
import { incrementalSync } from './incremental-sync.js';
import { SyncInterruptedError } from './sync-errors.js';

export interface SyncTuning {
  /** Emails per Email/query + Email/get page of a full sync (narrowed to maxObjectsInGet). */
  batchSize: number;
  /** maxChanges per Email/changes page (narrowed to maxObjectsInGet). */
  maxChanges: number;
}

export type SyncMode = 'full' | 'incremental';

export interface SyncProgress {
  accountId: string;
  email: string;
  phase: SyncMode;
  /** Emails fetched from the server so far in this run. */
  fetched: number;
  stored: number;
  /** Emails to go through in all, during a full sync, when the server says. */
  total?: number;
}

export interface RunStats {
  mode: SyncMode | null;
  fetched: number;
  stored: number;
  emailsCreated: number;
  deleted: number;
  contactsCreated: number;
}

export class AccountRun {
  readonly stats: RunStats = { mode: null, fetched: 0, stored: 0, emailsCreated: 0, deleted: 0, contactsCreated: 0 };
  readonly ownAddresses: Set<string>;

  constructor(
    readonly lease: AccountLease,
    readonly client: JmapClient,
    readonly writer: BatchWriter,
    readonly options: SyncTuning,
    readonly logger: Logger,
    readonly signal: AbortSignal,
    private readonly stopping: () => boolean,
    private readonly onProgress?: (progress: SyncProgress) => void | Promise<void>,
  ) {
    const own = [lease.account.email, lease.account.jmapAccountId].map(normalizeAddress).filter((a): a is string => a !== null);
    this.ownAddresses = new Set(own);
  }

  get jmapAccountId(): string {
    return this.lease.account.jmapAccountId;
  }

  record(fetched: number, result: BatchResult): void {
    this.stats.fetched += fetched;
    this.stats.stored += result.stored;
    this.stats.emailsCreated += result.emailsCreated;
    this.stats.deleted += result.deleted;
    this.stats.contactsCreated += result.contactsCreated;
  }

  /** Tells the caller (CLI progress bar) after each committed batch; a throwing callback ends the run. */
  async progress(phase: SyncMode, total?: number): Promise<void> {
    await this.onProgress?.({
      accountId: this.lease.account.id,
      email: this.lease.account.email,
      phase,
      fetched: this.stats.fetched,
      stored: this.stats.stored,
      total,
    });
  }

  /** Between batches: everything so far is committed, so stopping here loses nothing. */
  throwIfStopping(): void {
    if (this.stopping()) throw new SyncInterruptedError();
  }

  /** The steps of a run, in order. `pushReadState` retries read-state write-backs that failed earlier. */
  async execute(pushReadState: () => Promise<void>): Promise<void> {
    await pushReadState();
    this.throwIfStopping();
    const since = this.lease.emailState;
    if (since === null) {
      await fullSync(this);
    } else {
      try {
        await incrementalSync(this, since);
        return;
      } catch (err) {
        if (!(err instanceof JmapMethodError && err.type === 'cannotCalculateChanges')) throw err;
        this.logger.info('mail server cannot calculate changes; resyncing in full', { accountId: this.lease.account.id });
        await fullSync(this);
      }
    }
    // Replays what changed on the server while the full sync was paging.
    await incrementalSync(this, this.lease.emailState!);
  }
}
