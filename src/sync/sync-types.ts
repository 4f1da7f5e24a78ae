/** The sync's public types, shared by the service, the runner of one account, the CLI and the tests. */
import type { Sequelize } from 'sequelize';
import type { JmapClient } from '../jmap/client.js';
import type { Logger } from '../logging/logger.js';
import type { AppMetrics } from '../metrics/metrics.js';
import type { EmailAccount } from '../models/index.js';
import type { SyncMode, SyncProgress, SyncTuning } from './account-run.js';

export type { SyncMode, SyncProgress, SyncTuning } from './account-run.js';

/** Sends read-state changes made in the CRM to the server (src/emails/read-state-pusher.ts). */
export interface ReadStateWriteBack {
  push(account: EmailAccount): Promise<unknown>;
}

export interface SyncServiceDeps {
  sequelize: Sequelize;
  logger: Logger;
  /** A JMAP client signed in as the account (EmailAccountService.clientFor). */
  clientFor: (account: EmailAccount) => JmapClient;
  readState?: ReadStateWriteBack;
  metrics?: AppMetrics;
}

export interface SyncServiceOptions extends Partial<SyncTuning> {
  /** How long a lease lasts without renewal; every batch renews it. */
  leaseSeconds?: number;
  /** Accounts synced at once by runDueAccounts / syncAll. */
  concurrency?: number;
  /** Names this process in locked_by (default host:pid:random). */
  instanceId?: string;
}

export type SyncOutcome = 'ok' | 'error' | 'auth_failed' | 'skipped' | 'interrupted';

export interface SyncResult {
  accountId: string;
  email: string | null;
  outcome: SyncOutcome;
  mode: SyncMode | null;
  fetched: number;
  /** Email rows inserted or refreshed. */
  stored: number;
  emailsCreated: number;
  deleted: number;
  contactsCreated: number;
  /** HTTP requests made to the JMAP server by this run. */
  requests: number;
  durationMs: number;
  /** The message stored in last_error, for error and auth_failed. */
  error?: string;
  /** A short cause for metrics and logs (auth, unreachable, timeout, method, protocol, config, internal, database). */
  failureReason?: string;
}

export interface RunOptions {
  /** Called after each committed batch; a callback that throws ends the run (as a failure). */
  onProgress?: (progress: SyncProgress) => void | Promise<void>;
}

export function skippedResult(accountId: string): SyncResult {
  return { accountId, email: null, outcome: 'skipped', mode: null, fetched: 0, stored: 0, emailsCreated: 0, deleted: 0, contactsCreated: 0, requests: 0, durationMs: 0 };
}
