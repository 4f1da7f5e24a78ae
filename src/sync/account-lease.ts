/**
 * Exclusive right to sync one account, held in its mail_sync_states row so that every process
 * sharing the database respects it (an in-process mutex would not). A crashed holder's lease
 * expires and can be taken over. Every checkpoint renews the lease and proves, in the same
 * statement, that this run still holds it and that the account is still what the run started
 * with; otherwise the batch's transaction rolls back and the run stops.
 */
import type { Transactions, Tx } from '../db/transactions.js';
import type { EmailAccount, SyncStatus } from '../models/index.js';
import { SyncSupersededError } from './sync-errors.js';
import type { CheckpointFields, Finish, FullSyncCheckpoint, HeldLease, StateRow, SyncRepository } from './sync-repository.js';
import { describeHolder } from './lease-holder.js';
import { phaseMs, type SyncSchedule } from './sync-schedule.js';

function refusalReason(row: StateRow): string {
  if (!row.syncable) return 'the email account is inactive, or none of its users is active';
  if (row.leased) {
    return `another process is syncing it: ${describeHolder(row.locked_by ?? 'unknown')} holds the lease until ${row.locked_until?.toISOString() ?? '?'}`;
  }
  if (!row.due) return 'it is not due yet (its turn or the backoff after a failure has not come)';
  return 'its lease could not be taken';
}

export interface LeaseOptions {
  leaseSeconds: number;
  schedule: SyncSchedule;
}

type LeaseData = { repository: SyncRepository; transactions: Transactions };

/** Why a lease was not taken: one line for `crm-admin sync run` and the log. */
interface LeaseRefusal {
  refused: string;
}

/** An expired lease this one replaced: its holder stopped renewing it (crashed, killed, hung). */
interface TakenOver {
  holder: string;
  expiredAt: Date;
}

type LeaseRow = Pick<StateRow, 'status' | 'email_state' | 'full_sync_checkpoint' | 'consecutive_failures' | 'locked_by' | 'locked_until'>;

/** Who holds a lease on which account, as acquire() and claimNextDue() took it. */
interface LeaseHolding {
  data: LeaseData;
  account: EmailAccount;
  owner: string;
  options: LeaseOptions;
}

export class AccountLease {
  private readonly repository: SyncRepository;
  readonly account: EmailAccount;
  readonly owner: string;
  private readonly options: LeaseOptions;
  readonly previousStatus: SyncStatus;
  readonly consecutiveFailures: number;
  public emailState: string | null;
  public fullSync: FullSyncCheckpoint | null;
  /** The turn this run serves, when it was taken from the queue of due accounts. */
  readonly dueAt: Date | null;
  readonly takenOver: TakenOver | null;

  /** The lease of `holding` from its state row (and the turn it serves, when taken from the queue). */
  private constructor(holding: LeaseHolding, row: LeaseRow, dueAt: Date | null = null) {
    this.repository = holding.data.repository;
    this.account = holding.account;
    this.owner = holding.owner;
    this.options = holding.options;
    // A crashed run left 'syncing' behind; what it replaced is unknown, so call it idle.
    this.previousStatus = row.status === 'syncing' ? 'idle' : row.status;
    this.consecutiveFailures = row.consecutive_failures;
    this.emailState = row.email_state;
    this.fullSync = row.full_sync_checkpoint;
    this.dueAt = dueAt;
    // A lease is given up with locked_by cleared: one still named here expired under its holder.
    this.takenOver = row.locked_by !== null && row.locked_until !== null ? { holder: row.locked_by, expiredAt: row.locked_until } : null;
  }

  /** What every write of this run checks against: the lease and the account as the run started with it. */
  private get held(): HeldLease {
    const { account } = this;
    return {
      accountId: account.id,
      owner: this.owner,
      leaseSeconds: this.options.leaseSeconds,
      jmapAccountId: account.jmapAccountId,
      email: account.email,
      emailPassword: account.emailPassword,
      userId: account.userId,
      previousStatus: this.previousStatus,
      intervalMs: this.options.schedule.intervalMs,
      phaseMs: phaseMs(account.id, this.options.schedule.intervalMs),
    };
  }

  /** A refusal (with its reason) when the account is inactive, gone, leased by someone else, or (dueOnly) not due. */
  static async acquire(data: LeaseData, accountId: string, owner: string, options: LeaseOptions & { dueOnly: boolean }): Promise<AccountLease | LeaseRefusal> {
    const { repository } = data;
    return data.transactions.run(async (tx) => {
      await repository.ensureStateRow(accountId, tx);
      const row = await repository.lockState(accountId, options.dueOnly, tx);
      if (!row) return { refused: 'the email account does not exist' };
      if (!row.acquired) return { refused: refusalReason(row) };
      await repository.takeLease(accountId, owner, options.leaseSeconds, tx);
      const account = await repository.findAccount(accountId, tx);
      if (!account) return { refused: 'the email account does not exist' };
      return new AccountLease({ data, account, owner, options }, row);
    });
  }

  /**
   * The lease of the next due account (requested first, then the earliest turn), or null when none
   * is due. `accountIds` narrows the queue (crm-admin, tests sharing one database).
   */
  static async claimNextDue(data: LeaseData, owner: string, options: LeaseOptions & { accountIds: string[] | null }): Promise<AccountLease | null> {
    const { repository } = data;
    return data.transactions.run(async (tx) => {
      const row = await repository.claimNextDue(owner, options.leaseSeconds, options.accountIds, tx);
      if (!row) return null;
      const account = await repository.findAccount(row.account_id, tx);
      // Cannot happen while the state row is locked (deleting the account cascades to it); never keep a lease on nothing.
      if (!account) throw new Error(`email account ${row.account_id} vanished while its lease was taken`);
      return new AccountLease({ data, account, owner, options }, row, row.due_at);
    });
  }

  /**
   * Renews the lease and stores the given progress, inside the batch's transaction: the batch and
   * its checkpoint commit together or not at all. `relaxDurability`: see SyncRepository.renewLease.
   */
  async checkpoint(fields: CheckpointFields = {}, tx?: Tx, options: { relaxDurability?: boolean } = {}): Promise<void> {
    const renewed = await this.repository.renewLease(this.held, fields, tx, options);
    if (!renewed) throw new SyncSupersededError('lease lost, or the account was removed, deactivated, given new credentials or a new owner');
    if (fields.emailState !== undefined) this.emailState = fields.emailState;
    if (fields.fullSync !== undefined) this.fullSync = fields.fullSync;
  }

  /** After a batch checkpointed with relaxDurability committed: its events' wake-up (SyncRepository.renewLease). */
  async wakeEventFollowers(): Promise<void> {
    await this.repository.wakeEventFollowers();
  }

  /** Records the outcome and gives the lease up (a no-op when it was lost meanwhile). */
  finish(result: Finish): Promise<void> {
    return this.repository.finishLease(this.held, result);
  }
}
