/**
 * Exclusive right to sync one account, held in its mail_sync_states row so that every process
 * sharing the database respects it (an in-process mutex would not). A crashed holder's lease
 * expires and can be taken over. Every checkpoint renews the lease and proves, in the same
 * statement, that this run still holds it and that the account is still what the run started
 * with; otherwise the batch's transaction rolls back and the run stops.
 */
import type { Sequelize, Transaction } from 'sequelize';
import { EmailAccount, type SyncStatus } from '../models/index.js';
import { SyncSupersededError } from './sync-errors.js';
import { execute, selectRows } from './sql.js';

/** Where an unfinished full sync stands; null once it completed. */
export interface FullSyncCheckpoint {
  /** The Email state read before the full sync began: incremental sync continues from it. */
  state: string;
  /** The last email id committed (query anchor), null before the first batch. */
  anchor: string | null;
  /** A checkpoint of another mailbox (the account's address changed) is not resumed. */
  jmapAccountId: string;
}

export interface CheckpointFields {
  emailState?: string | null;
  fullSync?: FullSyncCheckpoint | null;
  generation?: number;
}

export type Finish =
  | { outcome: 'ok' }
  | { outcome: 'error'; message: string; backoffMinutes: number }
  | { outcome: 'auth_failed'; message: string }
  | { outcome: 'released' };

interface StateRow {
  status: SyncStatus;
  email_state: string | null;
  full_sync_checkpoint: FullSyncCheckpoint | null;
  sync_generation: number;
  consecutive_failures: number;
  acquired: boolean;
}

/** Mail an account may be due for: never synced, backoff over, or explicitly requested. */
export const DUE_CONDITION = `(s.requested_at IS NOT NULL OR (s.status <> 'auth_failed' AND (s.next_attempt_at IS NULL OR s.next_attempt_at <= now())))`;

export class AccountLease {
  private constructor(
    private readonly sequelize: Sequelize,
    readonly account: EmailAccount,
    private readonly owner: string,
    private readonly leaseSeconds: number,
    readonly previousStatus: SyncStatus,
    readonly consecutiveFailures: number,
    public emailState: string | null,
    public fullSync: FullSyncCheckpoint | null,
    public generation: number,
  ) {}

  /** Null when the account is inactive, gone, leased by someone else, or (dueOnly) not due. */
  static async acquire(
    sequelize: Sequelize,
    accountId: string,
    owner: string,
    options: { leaseSeconds: number; dueOnly: boolean },
  ): Promise<AccountLease | null> {
    return sequelize.transaction(async (transaction) => {
      await execute(sequelize, 'INSERT INTO mail_sync_states (email_account_id) SELECT id FROM email_accounts WHERE id = $1 ON CONFLICT DO NOTHING', [accountId], transaction);
      const [row] = await selectRows<StateRow>(
        sequelize,
        `SELECT s.status, s.email_state, s.full_sync_checkpoint, s.sync_generation, s.consecutive_failures,
                (a.is_active AND (s.locked_until IS NULL OR s.locked_until < now())${options.dueOnly ? ` AND ${DUE_CONDITION}` : ''}) AS acquired
           FROM mail_sync_states s JOIN email_accounts a ON a.id = s.email_account_id
          WHERE s.email_account_id = $1
            FOR UPDATE OF s`,
        [accountId],
        transaction,
      );
      if (!row?.acquired) return null;
      await execute(
        sequelize,
        `UPDATE mail_sync_states SET locked_by = $2, locked_until = now() + make_interval(secs => $3), status = 'syncing',
                last_attempt_at = now(), requested_at = NULL, updated_at = now()
          WHERE email_account_id = $1`,
        [accountId, owner, options.leaseSeconds],
        transaction,
      );
      const account = await EmailAccount.findByPk(accountId, { transaction });
      if (!account) return null;
      // A crashed run left 'syncing' behind; what it replaced is unknown, so call it idle.
      const previous = row.status === 'syncing' ? 'idle' : row.status;
      return new AccountLease(sequelize, account, owner, options.leaseSeconds, previous, row.consecutive_failures,
        row.email_state, row.full_sync_checkpoint, row.sync_generation);
    });
  }

  /**
   * Renews the lease and stores the given progress, inside the batch's transaction: the batch and
   * its checkpoint commit together or not at all.
   */
  async checkpoint(transaction: Transaction | undefined, fields: CheckpointFields = {}): Promise<void> {
    const bind: unknown[] = [this.account.id, this.owner, this.leaseSeconds, this.account.jmapAccountId, this.account.emailPassword];
    const sets = ['locked_until = now() + make_interval(secs => $3)', 'updated_at = now()'];
    const set = (column: string, value: unknown) => {
      bind.push(value);
      sets.push(`${column} = $${bind.length}`);
    };
    if (fields.emailState !== undefined) set('email_state', fields.emailState);
    if (fields.fullSync !== undefined) set('full_sync_checkpoint', fields.fullSync === null ? null : JSON.stringify(fields.fullSync));
    if (fields.generation !== undefined) set('sync_generation', fields.generation);
    const touched = await execute(
      this.sequelize,
      `UPDATE mail_sync_states s SET ${sets.join(', ')}
        WHERE s.email_account_id = $1 AND s.locked_by = $2
          AND EXISTS (SELECT 1 FROM email_accounts a WHERE a.id = $1 AND a.is_active AND a.jmap_account_id = $4 AND a.email_password = $5)`,
      bind,
      transaction,
    );
    if (touched === 0) throw new SyncSupersededError('lease lost, or the account was removed, deactivated or given new credentials');
    if (fields.emailState !== undefined) this.emailState = fields.emailState;
    if (fields.fullSync !== undefined) this.fullSync = fields.fullSync;
    if (fields.generation !== undefined) this.generation = fields.generation;
  }

  /** Records the outcome and gives the lease up (a no-op when it was lost meanwhile). */
  async finish(result: Finish): Promise<void> {
    const bind: unknown[] = [this.account.id, this.owner];
    let sets: string;
    switch (result.outcome) {
      case 'ok':
        sets = `status = 'ok', last_success_at = now(), last_error = NULL, consecutive_failures = 0, next_attempt_at = NULL`;
        break;
      case 'error':
        bind.push(result.message, result.backoffMinutes);
        sets = `status = 'error', last_error = $3, consecutive_failures = consecutive_failures + 1,
                next_attempt_at = now() + make_interval(mins => $4)`;
        break;
      case 'auth_failed':
        // Credentials changed while this run used the old ones: the new ones deserve a try, not a stop.
        bind.push(result.message, this.account.emailPassword, this.account.email);
        sets = `status = CASE WHEN same.creds THEN 'auth_failed' ELSE 'idle' END,
                last_error = CASE WHEN same.creds THEN $3 ELSE NULL END,
                consecutive_failures = CASE WHEN same.creds THEN consecutive_failures + 1 ELSE 0 END,
                next_attempt_at = CASE WHEN same.creds THEN NULL ELSE now() END`;
        break;
      case 'released':
        bind.push(this.previousStatus);
        sets = `status = CASE WHEN status = 'syncing' THEN $3 ELSE status END, next_attempt_at = LEAST(next_attempt_at, now())`;
        break;
    }
    const from =
      result.outcome === 'auth_failed'
        ? `FROM (SELECT EXISTS (SELECT 1 FROM email_accounts a WHERE a.id = $1 AND a.email_password = $4 AND a.email = $5) AS creds) same`
        : '';
    await execute(
      this.sequelize,
      `UPDATE mail_sync_states SET ${sets}, locked_by = NULL, locked_until = NULL, updated_at = now() ${from}
        WHERE email_account_id = $1 AND locked_by = $2`,
      bind,
    );
  }
}
