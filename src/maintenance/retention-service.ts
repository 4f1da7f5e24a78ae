import type { AuditRepository } from '../audit/audit-repository.js';
import { AuditActions, type AuditService } from '../audit/audit-service.js';
import type { SessionRepository } from '../auth/session-repository.js';
import type { ThrottleRepository } from '../auth/throttle-repository.js';
import type { Transactions } from '../db/transactions.js';
import type { Logger } from '../logging/logger.js';
import type { EmailRetention } from '../privacy/email-retention.js';
import type { MaintenanceRepository } from './maintenance-repository.js';

/** Revoked sessions stay this long (what an admin looking into a logout or a reuse alarm may want to see). */
export const REVOKED_SESSION_KEEP_DAYS = 1;
const DAY_MS = 24 * 3600 * 1000;

export interface RetentionResult {
  /** False when another instance held the lock: it does the work this time. */
  ran: boolean;
  sessions: number;
  auditRecords: number;
  rateLimits: number;
  /** Emails past EMAIL_RETENTION_DAYS deleted from the CRM's copy (0 when the setting is off). */
  emails: number;
  /** Contacts the email retention left empty and deleted (EMAIL_RETENTION_DELETE_EMPTY_CONTACTS). */
  emptyContacts: number;
  /** Stored files no row referenced, older than STORAGE_SWEEP_GRACE_HOURS, removed. */
  orphanFiles: number;
}

export interface RetentionDeps {
  transactions: Transactions;
  maintenance: MaintenanceRepository;
  sessions: SessionRepository;
  auditRecords: AuditRepository;
  throttles: ThrottleRepository;
  audit: AuditService;
  logger: Logger;
  auditRetentionDays: number;
  /** EMAIL_RETENTION_DAYS (src/privacy/email-retention.ts); absent or off: emails are kept. */
  emails?: EmailRetention;
  /** The orphan sweep of stored files (src/storage/orphan-sweep.ts). */
  storedFiles?: { sweep(now: Date): Promise<{ removed: number }> };
}

/**
 * Nothing grows forever (docs/adr/0032-retention-job.md): sessions that ended (expired, or revoked more than a
 * day ago), audit records older than AUDIT_RETENTION_DAYS and throttle counters that expired are
 * deleted, and, with EMAIL_RETENTION_DAYS, emails older than that (src/privacy/email-retention.ts). `serve` runs this every hour (src/app/background-jobs.ts); every instance tries, one does the
 * work: the run holds an advisory lock for its transaction and the others skip.
 */
export class RetentionService {
  /** The advisory lock of a run (bigint key space; the migrator uses 7277001). */
  readonly lockKey = 7_277_013;

  constructor(private readonly deps: RetentionDeps) {}

  async run(now = new Date()): Promise<RetentionResult> {
    const { transactions, maintenance, sessions, auditRecords, throttles } = this.deps;
    const result = await transactions.run(async (tx): Promise<RetentionResult> => {
      if (!(await maintenance.tryLock(this.lockKey, tx))) return { ran: false, sessions: 0, auditRecords: 0, rateLimits: 0, emails: 0, emptyContacts: 0, orphanFiles: 0 };
      const revokedBefore = new Date(now.getTime() - REVOKED_SESSION_KEEP_DAYS * DAY_MS);
      const auditBefore = new Date(now.getTime() - this.deps.auditRetentionDays * DAY_MS);
      return {
        ran: true,
        sessions: await sessions.pruneEnded(now, revokedBefore, tx),
        auditRecords: await auditRecords.pruneBefore(auditBefore, tx),
        rateLimits: await throttles.pruneExpired(now, tx),
        emails: 0,
        emptyContacts: 0,
        orphanFiles: 0,
      };
    });
    if (result.ran && this.deps.emails) {
      // In batches of their own transactions (a first pass may delete millions of rows), by the
      // instance that took this run's lock.
      const pruned = await this.deps.emails.prune(now);
      result.emails = pruned.emails;
      result.emptyContacts = pruned.contacts;
    }
    if (result.ran && this.deps.storedFiles) {
      // After the lock's transaction: listing a bucket is a network call. A failing store must not cost the rest of the run.
      result.orphanFiles = await this.deps.storedFiles.sweep(now).then(
        (swept) => swept.removed,
        (err: unknown) => {
          this.deps.logger.error('storage sweep failed', { err });
          return 0;
        },
      );
    }
    if (result.auditRecords > 0) {
      // Deleting audit records is itself on record (after the deletion, so it is not deleted with them).
      await this.deps.audit.record(
        { action: AuditActions.auditPruned, details: { olderThanDays: this.deps.auditRetentionDays, count: result.auditRecords } },
        { actor: 'maintenance' },
      );
    }
    if (result.ran) this.deps.logger.info('retention pruned', { ...result });
    return result;
  }

  backlog() {
    return this.deps.maintenance.retentionBacklog(REVOKED_SESSION_KEEP_DAYS);
  }
}
