/**
 * The sync's bookkeeping in mail_sync_states: leases, checkpoints, outcomes, which accounts are due,
 * and the status list of `crm-admin sync status`. The emails and contacts a batch writes are in
 * mail-store-repository.ts.
 */
import type { ColumnType, OuterJoined, TableRow } from '../db/rows.js';
import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';
import { EmailAccount, type SyncStatus } from '../models/index.js';
import { EVENTS_CHANNEL } from '../events/outbox-repository.js';
import { parseHolder, type LeaseHolder } from './lease-holder.js';

/** Where an unfinished full sync stands; null once it completed. */
export interface FullSyncCheckpoint {
  /** The Email state read before the full sync began: incremental sync continues from it. */
  state: string;
  /** The last email id committed (query anchor), null before the first batch. */
  anchor: string | null;
  /** A checkpoint of another mailbox (the account's address changed) is not resumed. */
  jmapAccountId: string;
  /**
   * The account had no email when this full sync began: every row is one it wrote (or another writer
   * stored meanwhile), so it records nothing seen and sweeps nothing. Absent in checkpoints of 0.3.0.
   */
  startedEmpty?: boolean;
}

export interface CheckpointFields {
  emailState?: string | null;
  fullSync?: FullSyncCheckpoint | null;
}

export type Finish = { outcome: 'ok' } | { outcome: 'error'; message: string; backoffMinutes: number } | { outcome: 'auth_failed'; message: string } | { outcome: 'released' };

/** An account's sync state as a lease sees it when it is taken. */
export type StateRow = TableRow<
  'mail_sync_states',
  'status' | 'email_state' | 'full_sync_checkpoint' | 'consecutive_failures' | 'locked_by' | 'locked_until',
  { status: SyncStatus; full_sync_checkpoint: FullSyncCheckpoint | null }
> & {
  /** Active, not leased by anyone, and (when asked) due: the lease may be taken. */
  acquired: boolean;
  /** Why not, when not acquired: the account is synced at all, someone holds it, it is due. */
  syncable: boolean;
  leased: boolean;
  due: boolean;
  // locked_by, locked_until: the lease as found: a live holder (not acquired), or an expired one this lease takes over.
};

/**
 * A lease as this run holds it, and the account as the run started with it: every write proves that
 * both are still so.
 */
export interface HeldLease {
  accountId: string;
  owner: string;
  leaseSeconds: number;
  jmapAccountId: string;
  email: string;
  emailPassword: string;
  /** The owner: the batches write it into contacts and emails (an ownership transfer stops the run). */
  userId: string;
  /** The status before this run set 'syncing', restored when the run stops early. */
  previousStatus: SyncStatus;
  /** The polling period and this account's phase within it: where its next turn falls. */
  intervalMs: number;
  phaseMs: number;
}

/** An account claimed from the queue of due accounts: its state as a lease sees it. */
export interface ClaimedRow extends Omit<StateRow, 'acquired' | 'syncable' | 'leased' | 'due'> {
  account_id: ColumnType<'mail_sync_states', 'email_account_id'>;
  /** The turn this run serves (next_sync_at), null when the account had none yet. */
  due_at: ColumnType<'mail_sync_states', 'next_sync_at'>;
}

/** Accounts waiting for a run, database-wide: due now, and due for longer than one interval. */
export interface Backlog {
  due: number;
  overdue: number;
}

/** One line of `crm-admin sync status`: no credentials, only what an admin needs to act. */
export interface SyncStatusRow {
  accountId: string;
  userId: string;
  username: string;
  email: string;
  isActive: boolean;
  status: SyncStatus;
  /** A run holds the account's lease right now (in this or another process). */
  running: boolean;
  /** A full sync has completed at least once (incremental sync is possible). */
  initialSyncDone: boolean;
  lastAttemptAt: Date | null;
  lastSuccessAt: Date | null;
  lastError: string | null;
  consecutiveFailures: number;
  /** When it is next due: its next turn or the end of a backoff; null while it waits for new credentials. */
  nextAttemptAt: Date | null;
  /** The lease as stored: who holds (or held, when expired) the account, and until when. */
  lease: { holder: LeaseHolder; until: Date; expired: boolean } | null;
}

/** The whole cluster's sync, as the crm_sync_* gauges report it (every instance the same figures). */
export interface SyncSnapshot extends Backlog {
  /** Syncable accounts by status (idle, syncing, ok, error, auth_failed). */
  byStatus: Record<string, number>;
  /** Leases held now, and leases whose holder stopped renewing them (a dead worker's). */
  leasesHeld: number;
  leasesExpired: number;
  /** Seconds since the least recently synced syncable account last succeeded (0 when none has). */
  oldestSuccessAgeSeconds: number;
  /** Seconds since any lease was last taken or renewed (-1 when never): the workers' heartbeat. */
  lastLeaseActivityAgeSeconds: number;
}

/** An account (every one, with or without a state row: LEFT JOIN) and its sync state. */
type StatusRow = TableRow<'email_accounts', 'user_id' | 'email' | 'is_active'> &
  TableRow<'users', 'username'> &
  OuterJoined<
    TableRow<'mail_sync_states', 'status' | 'last_attempt_at' | 'last_success_at' | 'last_error' | 'consecutive_failures' | 'locked_by' | 'locked_until', { status: SyncStatus }>
  > & {
    account_id: ColumnType<'email_accounts', 'id'>;
    running: boolean;
    initial_sync_done: boolean;
    next_attempt_at: ColumnType<'mail_sync_states', 'next_attempt_at'>;
    lease_expired: boolean;
  };

/** Mail an account may be due for: explicitly requested, or its turn has come and any backoff is over. */
const DUE_CONDITION = `(s.requested_at IS NOT NULL OR (s.status <> 'auth_failed'
  AND (s.next_attempt_at IS NULL OR s.next_attempt_at <= now()) AND (s.next_sync_at IS NULL OR s.next_sync_at <= now())))`;

/**
 * An account the sync serves: active, and used by at least one member (owner or share) who is not
 * disabled. A leaver's own mailboxes stop syncing, unless an active colleague shares them.
 */
const SYNCABLE = `(a.is_active AND EXISTS (SELECT 1 FROM email_account_members m JOIN users mu ON mu.id = m.user_id
  WHERE m.email_account_id = a.id AND mu.disabled_at IS NULL))`;

/** Nobody holds the account's lease (a crashed holder's lease has expired). */
const UNLEASED = '(s.locked_until IS NULL OR s.locked_until < now())';

/** The account's first slot strictly after now: phase + k * interval (sync-schedule.ts nextSlotMs). */
const NEXT_SLOT = `to_timestamp(((floor((extract(epoch FROM now()) * 1000 - $phaseMs) / $intervalMs) + 1) * $intervalMs + $phaseMs) / 1000.0)`;

export class SyncRepository {
  constructor(private readonly sql: Sql) {}

  /** The account's state row, created when missing (nothing when the account is gone). */
  async ensureStateRow(accountId: string, tx?: Tx): Promise<void> {
    await this.sql.execute('INSERT INTO mail_sync_states (email_account_id) SELECT id FROM email_accounts WHERE id = $accountId ON CONFLICT DO NOTHING', { accountId }, tx);
  }

  /** Locks the account's state row (FOR UPDATE) and answers whether a lease may be taken on it. */
  lockState(accountId: string, dueOnly: boolean, tx?: Tx): Promise<StateRow | undefined> {
    return this.sql.one<StateRow>(
      `SELECT s.status, s.email_state, s.full_sync_checkpoint, s.consecutive_failures,
              (${SYNCABLE} AND ${UNLEASED}${dueOnly ? ` AND ${DUE_CONDITION}` : ''}) AS acquired,
              ${SYNCABLE} AS syncable, NOT ${UNLEASED} AS leased, ${DUE_CONDITION} AS due, s.locked_by, s.locked_until
         FROM mail_sync_states s JOIN email_accounts a ON a.id = s.email_account_id
        WHERE s.email_account_id = $accountId
          FOR UPDATE OF s`,
      { accountId },
      tx,
    );
  }

  async takeLease(accountId: string, owner: string, leaseSeconds: number, tx?: Tx): Promise<void> {
    await this.sql.execute(
      `UPDATE mail_sync_states SET locked_by = $owner, locked_until = now() + make_interval(secs => $leaseSeconds), status = 'syncing',
              last_attempt_at = now(), requested_at = NULL, updated_at = now()
        WHERE email_account_id = $accountId`,
      { accountId, owner, leaseSeconds },
      tx,
    );
  }

  /**
   * Takes the lease of the due account whose turn came first (requested ones before all), skipping
   * rows another worker is claiming at this instant (SKIP LOCKED): workers sharing the database pull
   * from one queue and never take the same account. Undefined when nothing is due.
   */
  claimNextDue(owner: string, leaseSeconds: number, accountIds: string[] | null, tx?: Tx): Promise<ClaimedRow | undefined> {
    return this.sql.one<ClaimedRow>(
      `WITH next AS (
         SELECT s.email_account_id, s.status, s.next_sync_at, s.requested_at, s.locked_by, s.locked_until
           FROM mail_sync_states s JOIN email_accounts a ON a.id = s.email_account_id
          WHERE ${SYNCABLE} AND ${DUE_CONDITION} AND ${UNLEASED}
            AND ($accountIds::uuid[] IS NULL OR s.email_account_id = ANY($accountIds::uuid[]))
          ORDER BY s.requested_at ASC NULLS LAST, s.next_sync_at ASC NULLS FIRST, s.email_account_id
          LIMIT 1
            FOR UPDATE OF s SKIP LOCKED)
       UPDATE mail_sync_states s SET locked_by = $owner, locked_until = now() + make_interval(secs => $leaseSeconds), status = 'syncing',
              last_attempt_at = now(), requested_at = NULL, updated_at = now()
         FROM next WHERE s.email_account_id = next.email_account_id
       RETURNING s.email_account_id AS account_id, next.status, s.email_state, s.full_sync_checkpoint,
                 s.consecutive_failures, next.next_sync_at AS due_at, next.locked_by, next.locked_until`,
      { owner, leaseSeconds, accountIds },
      tx,
    );
  }

  /** How many accounts wait for a run, and how many have waited longer than one interval. */
  async backlog(intervalSeconds: number): Promise<Backlog> {
    const row = await this.sql.one<Backlog>(
      `SELECT count(*)::int AS due,
              count(*) FILTER (WHERE GREATEST(s.requested_at, s.next_sync_at, s.next_attempt_at, s.created_at)
                                     < now() - make_interval(secs => $intervalSeconds))::int AS overdue
         FROM mail_sync_states s JOIN email_accounts a ON a.id = s.email_account_id
        WHERE ${SYNCABLE} AND ${DUE_CONDITION} AND ${UNLEASED}`,
      { intervalSeconds },
    );
    return row ?? { due: 0, overdue: 0 };
  }

  /**
   * The sync as a background job sees it (ADR 0145): accounts due and not leased, since when the
   * oldest has been due, and leases whose holder stopped renewing them.
   */
  async jobBacklog(): Promise<{ due: number; oldestDueSeconds: number | null; expiredLeases: number }> {
    const row = await this.sql.one<{ due: number; oldest: number | null; expired: number }>(
      `SELECT count(*) FILTER (WHERE ${DUE_CONDITION} AND ${UNLEASED})::int AS due,
              extract(epoch FROM now() - min(GREATEST(s.requested_at, s.next_sync_at, s.next_attempt_at, s.created_at)) FILTER (WHERE ${DUE_CONDITION} AND ${UNLEASED}))::float8 AS oldest,
              count(*) FILTER (WHERE s.locked_by IS NOT NULL AND s.locked_until <= now())::int AS expired
         FROM mail_sync_states s JOIN email_accounts a ON a.id = s.email_account_id
        WHERE ${SYNCABLE}`,
    );
    return { due: row?.due ?? 0, oldestDueSeconds: row?.oldest ?? null, expiredLeases: row?.expired ?? 0 };
  }

  findAccount(accountId: string, tx?: Tx): Promise<EmailAccount | null> {
    return EmailAccount.findByPk(accountId, { transaction: tx });
  }

  /**
   * One NOTIFY on the events channel, in a transaction of its own (no write, so no commit record and
   * no flush: the notification lock is held for an instant). Sent after a batch that deferred its
   * triggers' notification committed; the followers read whatever the outbox gained.
   */
  async wakeEventFollowers(): Promise<void> {
    await this.sql.execute(`SELECT pg_notify('${EVENTS_CHANNEL}', '')`);
  }

  /**
   * Renews the lease and stores the given progress, in one statement that also proves the lease and
   * the account are unchanged. Answers false when they are not (nothing was written).
   * `relaxDurability`: the transaction's commit need not wait for the WAL to reach disk (a batch
   * that can be fetched again). Set by this statement rather than a SET LOCAL of its own: a batch's
   * transaction is a handful of round trips, and the sync's pages wait on them. The same statement
   * tells the events triggers that the batch wakes the followers itself after its commit
   * (crm_events_wake, migration 0071): its commit then takes no notification lock, and the caller
   * must call wakeEventFollowers() once it committed.
   */
  async renewLease(lease: HeldLease, fields: CheckpointFields, tx?: Tx, { relaxDurability = false } = {}): Promise<boolean> {
    const sets = ['locked_until = now() + make_interval(secs => $leaseSeconds)', 'updated_at = now()'];
    if (fields.emailState !== undefined) sets.push('email_state = $emailState');
    if (fields.fullSync !== undefined) sets.push('full_sync_checkpoint = $fullSync');
    // The account row is locked first (FOR KEY SHARE, as the batch's foreign keys will): a hand-over
    // holding it makes this wait, and the row is then checked again as committed, so a batch never
    // writes under an owner who lost the account meanwhile. A plain EXISTS was evaluated before the
    // wait and not again. SYNCABLE: a run whose last active member was disabled meanwhile stops here.
    const touched = await this.sql.execute(
      `WITH account AS (
         SELECT a.id FROM email_accounts a
          WHERE a.id = $accountId AND ${SYNCABLE} AND a.jmap_account_id = $jmapAccountId
            AND a.email_password = $emailPassword AND a.user_id = $userId
            FOR KEY SHARE)
       UPDATE mail_sync_states s SET ${sets.join(', ')}
        WHERE s.email_account_id = (SELECT id FROM account) AND s.locked_by = $owner
       ${relaxDurability ? "RETURNING set_config('synchronous_commit', 'off', true), set_config('crm.events_wake', 'after_commit', true)" : ''}`,
      {
        accountId: lease.accountId,
        owner: lease.owner,
        leaseSeconds: lease.leaseSeconds,
        jmapAccountId: lease.jmapAccountId,
        emailPassword: lease.emailPassword,
        userId: lease.userId,
        emailState: fields.emailState ?? null,
        fullSync: fields.fullSync ? JSON.stringify(fields.fullSync) : null,
      },
      tx,
    );
    return touched > 0;
  }

  /** Records the outcome and gives the lease up (a no-op when it was lost meanwhile). */
  async finishLease(lease: HeldLease, result: Finish): Promise<void> {
    const bind: Record<string, unknown> = { accountId: lease.accountId, owner: lease.owner };
    let sets: string;
    switch (result.outcome) {
      case 'ok':
        Object.assign(bind, { intervalMs: lease.intervalMs, phaseMs: lease.phaseMs });
        sets = `status = 'ok', last_success_at = now(), last_error = NULL, consecutive_failures = 0, next_attempt_at = NULL,
                next_sync_at = ${NEXT_SLOT}`;
        break;
      case 'error':
        Object.assign(bind, { message: result.message, backoffMinutes: result.backoffMinutes });
        sets = `status = 'error', last_error = $message, consecutive_failures = consecutive_failures + 1,
                next_attempt_at = now() + make_interval(mins => $backoffMinutes)`;
        break;
      case 'auth_failed':
        // Credentials changed while this run used the old ones: the new ones deserve a try, not a stop.
        Object.assign(bind, { message: result.message, emailPassword: lease.emailPassword, email: lease.email });
        sets = `status = CASE WHEN same.creds THEN 'auth_failed' ELSE 'idle' END,
                last_error = CASE WHEN same.creds THEN $message ELSE NULL END,
                consecutive_failures = CASE WHEN same.creds THEN consecutive_failures + 1 ELSE 0 END,
                next_attempt_at = CASE WHEN same.creds THEN NULL ELSE now() END`;
        break;
      case 'released':
        bind.previousStatus = lease.previousStatus;
        sets = `status = CASE WHEN status = 'syncing' THEN $previousStatus ELSE status END, next_attempt_at = LEAST(next_attempt_at, now())`;
        break;
    }
    const from =
      result.outcome === 'auth_failed'
        ? `FROM (SELECT EXISTS (SELECT 1 FROM email_accounts a WHERE a.id = $accountId AND a.email_password = $emailPassword AND a.email = $email) AS creds) same`
        : '';
    await this.sql.execute(
      `UPDATE mail_sync_states SET ${sets}, locked_by = NULL, locked_until = NULL, updated_at = now() ${from}
        WHERE email_account_id = $accountId AND locked_by = $owner`,
      bind,
    );
  }

  /** Accounts created outside EmailAccountService (older data, manual SQL) get their state row. */
  ensureStateRows(): Promise<number> {
    return this.sql.execute(
      `INSERT INTO mail_sync_states (email_account_id, next_attempt_at)
       SELECT a.id, now() FROM email_accounts a WHERE NOT EXISTS (SELECT 1 FROM mail_sync_states s WHERE s.email_account_id = a.id)
       ON CONFLICT DO NOTHING`,
    );
  }

  /** Every active account, oldest first; those stopped on wrong credentials only when asked. */
  async activeAccountIds(includeAuthFailed: boolean): Promise<string[]> {
    const rows = await this.sql.select<{ id: string }>(
      `SELECT a.id FROM email_accounts a JOIN mail_sync_states s ON s.email_account_id = a.id
        WHERE ${SYNCABLE} AND ($includeAuthFailed OR s.status <> 'auth_failed') ORDER BY a.created_at`,
      { includeAuthFailed },
    );
    return rows.map((r) => r.id);
  }

  /** Marks the account requested: any instance's next tick takes it, backoff or not. */
  async markRequested(accountId: string): Promise<void> {
    await this.sql.execute(
      `INSERT INTO mail_sync_states (email_account_id, requested_at) VALUES ($accountId, now())
       ON CONFLICT (email_account_id) DO UPDATE SET requested_at = now(), updated_at = now()`,
      { accountId },
    );
  }

  /** Whether a "sync now" is waiting for the account (requested_at, cleared when a lease is taken). */
  async isRequested(accountId: string): Promise<boolean> {
    const row = await this.sql.one<{ requested: boolean }>('SELECT requested_at IS NOT NULL AS requested FROM mail_sync_states WHERE email_account_id = $accountId', { accountId });
    return row?.requested === true;
  }

  async statusList(filter: { userId?: string } = {}): Promise<SyncStatusRow[]> {
    const rows = await this.sql.select<StatusRow>(
      `SELECT a.id AS account_id, a.user_id, u.username, a.email, a.is_active, s.status,
              coalesce(s.locked_until > now(), false) AS running, s.email_state IS NOT NULL AS initial_sync_done,
              s.last_attempt_at, s.last_success_at, s.last_error, s.consecutive_failures,
              CASE WHEN s.requested_at IS NOT NULL THEN s.requested_at WHEN s.status = 'auth_failed' THEN NULL
                   ELSE GREATEST(s.next_attempt_at, s.next_sync_at) END AS next_attempt_at,
              s.locked_by, s.locked_until, coalesce(s.locked_until <= now(), false) AS lease_expired
         FROM email_accounts a
         JOIN users u ON u.id = a.user_id
         LEFT JOIN mail_sync_states s ON s.email_account_id = a.id
        WHERE $userId::uuid IS NULL OR a.user_id = $userId::uuid
        ORDER BY lower(u.username), a.email`,
      { userId: filter.userId ?? null },
    );
    return rows.map((r) => ({
      accountId: r.account_id,
      userId: r.user_id,
      username: r.username,
      email: r.email,
      isActive: r.is_active,
      status: r.status ?? 'idle',
      running: r.running,
      initialSyncDone: r.initial_sync_done === true,
      lastAttemptAt: r.last_attempt_at,
      lastSuccessAt: r.last_success_at,
      lastError: r.last_error,
      consecutiveFailures: r.consecutive_failures ?? 0,
      nextAttemptAt: r.next_attempt_at,
      lease: r.locked_by !== null && r.locked_until !== null ? { holder: parseHolder(r.locked_by), until: r.locked_until, expired: r.lease_expired } : null,
    }));
  }

  /** One statement for every crm_sync_* gauge, read at scrape time (src/metrics). */
  async snapshot(intervalSeconds: number): Promise<SyncSnapshot> {
    const backlog = await this.backlog(intervalSeconds);
    const rows = await this.sql.select<{ status: string; accounts: number }>(
      `SELECT coalesce(s.status, 'idle') AS status, count(*)::int AS accounts
         FROM email_accounts a LEFT JOIN mail_sync_states s ON s.email_account_id = a.id
        WHERE ${SYNCABLE} GROUP BY 1`,
    );
    const leases = await this.sql.one<{ held: number; expired: number; oldest_success: number; last_activity: number }>(
      `SELECT count(*) FILTER (WHERE s.locked_until > now())::int AS held,
              count(*) FILTER (WHERE s.locked_by IS NOT NULL AND s.locked_until <= now())::int AS expired,
              coalesce(extract(epoch FROM now() - min(s.last_success_at) FILTER (WHERE ${SYNCABLE})), 0)::float8 AS oldest_success,
              coalesce(extract(epoch FROM now() - max(CASE WHEN s.locked_until > now() THEN now() ELSE s.last_attempt_at END)), -1)::float8 AS last_activity
         FROM mail_sync_states s JOIN email_accounts a ON a.id = s.email_account_id`,
    );
    return {
      ...backlog,
      byStatus: Object.fromEntries(rows.map((r) => [r.status, r.accounts])),
      leasesHeld: leases?.held ?? 0,
      leasesExpired: leases?.expired ?? 0,
      oldestSuccessAgeSeconds: Math.max(0, leases?.oldest_success ?? 0),
      lastLeaseActivityAgeSeconds: leases?.last_activity ?? -1,
    };
  }
}
