import type { Transactions, Tx } from '../db/transactions.js';
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
  emailCredentialsRejected: 'email_account.credentials_rejected',
  emailAccountShared: 'email_account.share_created',
  emailAccountShareChanged: 'email_account.share_changed',
  emailAccountUnshared: 'email_account.share_removed',
  emailAccountOwnerChanged: 'email_account.owner_changed',
  timesheetUploaded: 'timesheet.uploaded',
  timesheetDeleted: 'timesheet.deleted',
  timesheetPurge: 'admin.timesheet_purge',
  auditPruned: 'admin.audit_pruned',
  contactCreated: 'contact.created',
  contactDeleted: 'contact.deleted',
  /** An address book file imported into a mailbox (src/contacts): its account, format and counts, never an address or a value. */
  contactsImported: 'contacts.imported',
  /** A mailbox's contacts exported (src/contacts): its account, format and how many, never an address. */
  contactsExported: 'contacts.exported',
  /** A company's name or notes changed (src/companies): its id, domain and the fields changed, never their text. */
  companyUpdated: 'company.updated',
  personUpdated: 'person.updated',
  personMerged: 'person.merged',
  dbBackup: 'admin.db_backup',
  dbRestore: 'admin.db_restore',
  /** Stored files copied between the local directory and the bucket (crm-admin timesheets migrate-storage): counts only. */
  storageMigrated: 'admin.storage_migrated',
  /** Stored files no row referenced, removed by the hourly sweep: counts only. */
  storageSwept: 'admin.storage_swept',
  /** An email sent from the CRM: account, number of recipients, Message-ID; never the body or the addresses. */
  emailSend: 'email.send',
  /** A send scheduled for later (sendAt), and one cancelled before it went (src/scheduled-emails): ids and times, never the text. */
  emailScheduled: 'email.scheduled',
  scheduledEmailCancelled: 'email.schedule_cancelled',
  /** A scheduled send that did not go (a disabled user, a lost send right, a refusal): its id and the reason's code. */
  scheduledEmailFailed: 'email.schedule_failed',
  /** A file added to or removed from a server draft (src/drafts): the draft, the file's size and type, never its name or content. */
  draftAttachmentAdded: 'email_draft.attachment_added',
  /** The caller's signature of a mailbox set (src/signatures): the account, the text's length, never the text. */
  signatureUpdated: 'email_signature.updated',
  /** A template created, changed or deleted (src/templates): its id, name and shared flag, never its text. */
  templateCreated: 'email_template.created',
  templateUpdated: 'email_template.updated',
  templateDeleted: 'email_template.deleted',
  /**
   * Personal data of an address exported or erased (src/privacy): the address only as its keyed hash.
   * `privacy.exported` is committed before the export's first byte (an export that cannot be recorded
   * is refused); `privacy.export_ended` follows with the same exportId: completed or aborted, and the bytes sent.
   */
  privacyExported: 'privacy.exported',
  privacyExportEnded: 'privacy.export_ended',
  privacyErased: 'privacy.erased',
  userDisabled: 'admin.user_disabled',
  userEnabled: 'admin.user_enabled',
  /** A user ended one of their own sessions (GET/DELETE /api/auth/sessions). */
  sessionRevoked: 'auth.session_revoked',
  /** A user ended every other session of theirs. */
  otherSessionsRevoked: 'auth.other_sessions_revoked',
  /** An administrator ended every session of a user (crm-admin users logout). */
  userLoggedOut: 'admin.user_logged_out',
  timesheetsExported: 'admin.timesheets_exported',
  /** Migrations applied or reverted (crm-admin db migrate, or serve at its start): from/to schema and each step's duration. */
  dbMigrate: 'db.migrate',
  /** Mail of an email account read again from the server (crm-admin sync resync): outcome and counts, never addresses. */
  syncResync: 'sync.resync',
  /** A conversation's assignee or status changed (src/conversations): ids and the new values, never mail content. */
  conversationUpdated: 'conversation.updated',
  /** An internal comment added to / deleted from a conversation: ids and mention count, never the text. */
  commentCreated: 'comment.created',
  commentDeleted: 'comment.deleted',
  /** A task created, changed or deleted (src/tasks): ids, the fields changed, the new assignee and status; never the title. */
  taskCreated: 'task.created',
  taskUpdated: 'task.updated',
  taskDeleted: 'task.deleted',

  /** Personal API tokens (src/api-tokens): created, revoked, used (at most once per token in 10 minutes); never the secret. */
  apiTokenCreated: 'api_token.created',
  apiTokenRevoked: 'api_token.revoked',
  apiTokenUsed: 'api_token.used',

  /** Webhooks (src/webhooks): created, changed (a rotated secret says so), deleted; never the secret. */
  webhookCreated: 'webhook.created',
  webhookUpdated: 'webhook.updated',
  webhookDeleted: 'webhook.deleted',
} as const;

/** A stretch of time in which repeated records of one kind and client become one counted record. */
export interface AuditWindow {
  /** Who and what is counted, e.g. "login:<client>"; the window's start is added to it. */
  scope: string;
  seconds: number;
}

export class AuditService {
  constructor(
    private readonly records: AuditRepository,
    private readonly logger: Logger,
    private readonly transactions: Transactions,
  ) {}

  /**
   * Writes one audit record. Inside a transaction it commits or rolls back with the change it
   * describes; outside one, a failed audit write is logged but never fails the user's request.
   */
  async record(entry: AuditEntry, meta: RequestMeta = {}, tx?: Tx): Promise<void> {
    const row = this.row(entry, meta);
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

  /**
   * For events a flood repeats (throttled attempts): the first one in a window is a record with
   * details.count = 1, each further one adds to that count instead of writing a row. Windows are fixed
   * slices of time, so a flood that goes on leaves one row per window. Never fails the caller.
   */
  async recordCounted(entry: AuditEntry, meta: RequestMeta, window: AuditWindow): Promise<void> {
    const start = new Date(Math.floor(Date.now() / (window.seconds * 1000)) * window.seconds * 1000);
    const windowKey = `${window.scope}@${start.toISOString()}`;
    try {
      await this.transactions.run(async (tx) => {
        await this.records.lockWindow(windowKey, tx);
        if (await this.records.bumpCounted(entry.action, windowKey, start, tx)) return;
        const details = { ...entry.details, count: 1, window: windowKey, windowSeconds: window.seconds };
        await this.records.insert(this.row({ ...entry, details }, meta), tx);
      });
    } catch (err) {
      this.logger.error('audit write failed', { err, action: entry.action });
    }
  }

  private row(entry: AuditEntry, meta: RequestMeta) {
    return {
      action: entry.action,
      userId: entry.userId ?? null,
      username: entry.username ?? null,
      actor: meta.actor ?? null,
      success: entry.success ?? true,
      ip: meta.ip ?? null,
      userAgent: truncate(meta.userAgent, 512),
      details: entry.details ?? {},
    };
  }
}

function truncate(value: string | null | undefined, max: number): string | null {
  if (!value) return null;
  return value.length > max ? value.slice(0, max) : value;
}
