/** The sync's public types, shared by the service, the runner of one account, the CLI and the tests. */
import type { Transactions } from '../db/transactions.js';
import type { JmapClient } from '../jmap/index.js';
import type { Logger } from '../logging/logger.js';
import type { AppMetrics } from '../metrics/metrics.js';
import type { EmailAccount } from '../models/index.js';
import type { MailGate } from './batch-writer.js';
import type { MailStoreRepository } from './mail-store-repository.js';
import { emptyStats, type RunStats, type SyncProgress, type SyncTuning } from './run-state.js';
import type { SyncRole } from './lease-holder.js';
import type { SyncRepository } from './sync-repository.js';

export type { RunStats, SyncProgress } from './run-state.js';
export type { SyncStatusRow } from './sync-repository.js';

/** Sends read-state changes made in the CRM to the server (src/emails/read-state-pusher.ts). */
export interface ReadStateWriteBack {
  push(account: EmailAccount): Promise<unknown>;
}

/**
 * Which mapped emails the CRM may store at all (src/privacy/suppression-filter.ts: erased addresses,
 * EMAIL_RETENTION_DAYS). One gate per run, asked with every page before it is written.
 */
export interface MailAdmission {
  forRun(): MailGate;
}

export type { MailGate } from './batch-writer.js';

export interface SyncServiceDeps {
  /** Leases, checkpoints, outcomes and status (mail_sync_states). */
  repository: SyncRepository;
  /** The emails and contacts a batch writes. */
  mailStore: MailStoreRepository;
  transactions: Transactions;
  logger: Logger;
  /** A JMAP client signed in as the account (EmailAccountService.clientFor). */
  clientFor: (account: EmailAccount) => JmapClient;
  readState?: ReadStateWriteBack;
  metrics?: AppMetrics;
  /** Leaves out what must not be stored (erasures, retention); without it every email is stored. */
  admission?: MailAdmission;
}

export interface SyncServiceOptions extends Partial<SyncTuning> {
  /** How long a lease lasts without renewal; every batch renews it. */
  leaseSeconds?: number;
  /** Accounts synced at once by runDueAccounts / syncAll (SYNC_CONCURRENCY). */
  concurrency?: number;
  /** Each account's polling period (SYNC_INTERVAL); its turns are spread over it (sync-schedule.ts). */
  intervalSeconds?: number;
  /** Names this process in locked_by (default host:pid:role:random, lease-holder.ts). */
  instanceId?: string;
  /** What kind of process this is, for the lease holder's name (default serve). */
  role?: SyncRole;
  /**
   * Whether requestSync also starts the run in this process (default). A short-lived crm-admin
   * command only marks the account requested: a serving instance's next tick takes it, and a run
   * left behind by the command's exit would hold the account's lease until it expired.
   */
  runRequestsHere?: boolean;
}

export type SyncOutcome = 'ok' | 'error' | 'auth_failed' | 'skipped' | 'interrupted';

export interface SyncResult extends RunStats {
  accountId: string;
  email: string | null;
  outcome: SyncOutcome;
  /** HTTP requests made to the JMAP server by this run. */
  requests: number;
  durationMs: number;
  /** The message stored in last_error, for error and auth_failed. */
  error?: string;
  /** A short cause for metrics and logs (auth, unreachable, timeout, method, protocol, config, internal, database). */
  failureReason?: string;
  /** Why the account was not synced, for a skipped run (e.g. who holds its lease). */
  skipReason?: string;
}

export interface RunOptions {
  /** Called after each committed batch; a callback that throws ends the run (as a failure). */
  onProgress?: (progress: SyncProgress) => void | Promise<void>;
}

export function skippedResult(accountId: string, skipReason: string): SyncResult {
  return { accountId, email: null, outcome: 'skipped', ...emptyStats(), requests: 0, durationMs: 0, skipReason };
}
