import type { Sequelize } from 'sequelize';
import type { SyncStatus } from '../models/index.js';
import { selectRows } from './sql.js';

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
  nextAttemptAt: Date | null;
}

interface Row {
  account_id: string;
  user_id: string;
  username: string;
  email: string;
  is_active: boolean;
  status: SyncStatus | null;
  running: boolean;
  initial_sync_done: boolean;
  last_attempt_at: Date | null;
  last_success_at: Date | null;
  last_error: string | null;
  consecutive_failures: number | null;
  next_attempt_at: Date | null;
}

export async function listSyncStatus(sequelize: Sequelize, filter: { userId?: string } = {}): Promise<SyncStatusRow[]> {
  const rows = await selectRows<Row>(
    sequelize,
    `SELECT a.id AS account_id, a.user_id, u.username, a.email, a.is_active, s.status,
            coalesce(s.locked_until > now(), false) AS running, s.email_state IS NOT NULL AS initial_sync_done,
            s.last_attempt_at, s.last_success_at, s.last_error, s.consecutive_failures, s.next_attempt_at
       FROM email_accounts a
       JOIN users u ON u.id = a.user_id
       LEFT JOIN mail_sync_states s ON s.email_account_id = a.id
      WHERE $1::uuid IS NULL OR a.user_id = $1::uuid
      ORDER BY lower(u.username), a.email`,
    [filter.userId ?? null],
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
  }));
}
