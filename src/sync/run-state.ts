/**
 * What one sync run of one leased account works with and what it has done so far: the state that the
 * full and the incremental sync share. The run's plan (which of them, in what order) is in
 * account-run.ts; keeping the state here lets both import it without importing the plan.
 */
import type { JmapClient } from '../jmap/index.js';
import type { Logger } from '../logging/logger.js';
import type { AccountLease } from './account-lease.js';
import { normalizeAddress } from './address-rules.js';
import type { BatchResult, BatchWriter } from './batch-writer.js';
import { SyncInterruptedError } from './sync-errors.js';

export interface SyncTuning {
  /** Emails per Email/query + Email/get page of a full sync (narrowed to maxObjectsInGet). */
  batchSize: number;
  /** maxChanges per Email/changes page (narrowed to maxObjectsInGet). */
  maxChanges: number;
  /** Full sync pages fetched ahead of the writer, at most (page-queue.ts). */
  prefetchPages: number;
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
  /** Email rows inserted or refreshed. */
  stored: number;
  emailsCreated: number;
  deleted: number;
  contactsCreated: number;
}

/** A run that has done nothing (yet): skipped, or failed before its first batch. */
export function emptyStats(): RunStats {
  return { mode: null, fetched: 0, stored: 0, emailsCreated: 0, deleted: 0, contactsCreated: 0 };
}

/** What one account's run works with: its lease, the JMAP client, the writer, and how to report and stop. */
interface RunParts {
  lease: AccountLease;
  client: JmapClient;
  writer: BatchWriter;
  options: SyncTuning;
  logger: Logger;
  signal: AbortSignal;
  stopping: () => boolean;
  onProgress?: (progress: SyncProgress) => void | Promise<void>;
}

export class RunState {
  readonly stats: RunStats = emptyStats();
  readonly ownAddresses: Set<string>;
  /** Seconds from the server's receivedAt to stored, of each new email an incremental run brought. */
  readonly lagSeconds: number[] = [];

  readonly lease: AccountLease;
  readonly client: JmapClient;
  readonly writer: BatchWriter;
  readonly options: SyncTuning;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  private readonly stopping: () => boolean;
  private readonly onProgress?: (progress: SyncProgress) => void | Promise<void>;

  constructor(parts: RunParts) {
    ({ lease: this.lease, client: this.client, writer: this.writer, options: this.options, logger: this.logger, signal: this.signal } = parts);
    this.stopping = parts.stopping;
    this.onProgress = parts.onProgress;
    const own = [this.lease.account.email, this.lease.account.jmapAccountId].map(normalizeAddress).filter((a): a is string => a !== null);
    this.ownAddresses = new Set(own);
  }

  get jmapAccountId(): string {
    return this.lease.account.jmapAccountId;
  }

  /**
   * Adds a committed batch to the stats. `fresh`: the batch is new mail (Email/changes), whose lag
   * from delivery is worth measuring; a full sync's old mail is not.
   */
  record(fetched: number, result: BatchResult, fresh = false): void {
    if (fresh) {
      const now = Date.now();
      for (const received of result.createdReceivedAt) this.lagSeconds.push(Math.max(0, (now - received.getTime()) / 1000));
    }
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
}
