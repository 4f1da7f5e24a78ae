import type { Tx } from '../db/transactions.js';
import type { Logger } from '../logging/logger.js';
import type { AuditRepository } from './audit-repository.js';

/** Who asked for an operation and from where; the same shape whether it came from HTTP, the CLI or cron. */
export type { RequestMeta } from '../shared/request-meta.js';
import type { RequestMeta } from '../shared/request-meta.js';

export interface AuditEntry {
  action: string;
  userId?: string | null;
  username?: string | null;
  success?: boolean;
  details?: Record<string, unknown>;
}

export const AuditActions = {
  loginAttempt: 'auth.login_attempt',
  login: 'auth.login',
  logout: 'auth.logout',
  passwordChange: 'auth.password_change',
  emailLink: 'auth.email_link',
  emailSkip: 'auth.email_skip',
  refreshReuse: 'auth.refresh_reuse',
  userCreated: 'admin.user_created',
  userUpdated: 'admin.user_updated',
  roleChanged: 'admin.role_changed',
  tempPasswordReset: 'admin.temp_password_reset',
  userDeleted: 'admin.user_deleted',
  emailAccountAttached: 'admin.email_account_attached',
  emailAccountRemoved: 'email_account.removed',
  emailAccountAdded: 'email_account.added',
  emailAccountUpdated: 'email_account.updated',
  emailAccountShared: 'email_account.share_created',
  emailAccountShareChanged: 'email_account.share_changed',
  emailAccountUnshared: 'email_account.share_removed',
  emailAccountOwnerChanged: 'email_account.owner_changed',
  timesheetUploaded: 'timesheet.uploaded',
  timesheetDeleted: 'timesheet.deleted',
  timesheetPurge: 'admin.timesheet_purge',
  contactCreated: 'contact.created',
  contactDeleted: 'contact.deleted',
} as const;

export class AuditService {
  constructor(
    private readonly records: AuditRepository,
    private readonly logger: Logger,
  ) {}

  /**
   * Writes one audit record. Inside a transaction it commits or rolls back with the change it
   * describes; outside one, a failed audit write is logged but never fails the user's request.
   */
  async record(entry: AuditEntry, meta: RequestMeta = {}, tx?: Tx): Promise<void> {
    const row = {
      action: entry.action,
      userId: entry.userId ?? null,
      username: entry.username ?? null,
      actor: meta.actor ?? null,
      success: entry.success ?? true,
      ip: meta.ip ?? null,
      userAgent: truncate(meta.userAgent, 512),
      details: entry.details ?? {},
    };
    if (tx) {
      await this.records.insert(row, tx);
      return;
    }
    try {
      await this.records.insert(row);
    } catch (err) {
      this.logger.error('audit write failed', { err, action: entry.action });
    }
  }
}

function truncate(value: string | null | undefined, max: number): string | null {
  if (!value) return null;
  return value.length > max ? value.slice(0, max) : value;
}
