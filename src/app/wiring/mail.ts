import type { AuditService } from '../../audit/audit-service.js';
import type { SessionService } from '../../auth/session-service.js';
import type { ContactService } from '../../contacts/contact-service.js';
import type { EmailAccountService } from '../../email-accounts/email-account-service.js';
import { AttachmentDownloads } from '../../emails/attachment-download.js';
import { EmailService } from '../../emails/email-service.js';
import { HtmlBodies } from '../../emails/html-bodies.js';
import { ReadStatePusher } from '../../emails/read-state-pusher.js';
import type { AppMetrics } from '../../metrics/metrics.js';
import { SuppressionFilter } from '../../privacy/suppression-filter.js';
import { EmailSenderService } from '../../sending/email-sender-service.js';
import { IdempotencyRepository } from '../../sending/idempotency-repository.js';
import { SendIdempotency } from '../../sending/idempotency.js';
import { SendThrottle, UploadBudget } from '../../sending/send-throttle.js';
import { SentEmailWriter } from '../../sync/sent-email-writer.js';
import { SyncRepository } from '../../sync/sync-repository.js';
import { SyncService } from '../../sync/sync-service.js';
import { ResyncRepository } from '../../sync/resync-repository.js';
import { ResyncService } from '../../sync/resync-service.js';
import type { Plumbing } from './plumbing.js';

// Mail: the stored emails (src/emails), the mail sync (src/sync) and sending (src/sending). Contacts
// and emails ask the same EmailAccountAccess (the accounts a user owns or that are shared with them).

interface Mailboxes {
  emailAccounts: EmailAccountService;
}

/** The sync calls push(account) at the start of each account's run to retry failed write-backs. */
export function readStatePusher(p: Plumbing, s: Mailboxes): ReadStatePusher {
  return new ReadStatePusher(p.emailRepository, s.emailAccounts, p.logger);
}

export function emails(p: Plumbing, s: { readStatePusher: ReadStatePusher }): EmailService {
  return new EmailService({ emails: p.emailRepository, accounts: p.accountAccess, pusher: s.readStatePusher, logger: p.logger });
}

export function emailAttachments(p: Plumbing, s: Mailboxes & { emails: EmailService }): AttachmentDownloads {
  return new AttachmentDownloads({ emails: s.emails, accounts: p.accountAccess, mail: s.emailAccounts, limits: p.config.attachmentDownloads });
}

export function emailHtml(p: Plumbing, s: Mailboxes): HtmlBodies {
  return new HtmlBodies({ accounts: p.accountAccess, mail: s.emailAccounts, logger: p.logger });
}

/** Erased addresses and EMAIL_RETENTION_DAYS: what the sync must not store (src/privacy). */
export function mailSync(p: Plumbing, s: Mailboxes & { readStatePusher: ReadStatePusher; metrics: AppMetrics }): SyncService {
  const admission = new SuppressionFilter({ suppressions: p.suppressions, hasher: p.addressHasher, retentionDays: p.config.emailRetention.days });
  return new SyncService(
    {
      repository: new SyncRepository(p.sql),
      mailStore: p.mailStore,
      transactions: p.transactions,
      logger: p.logger,
      clientFor: (account) => s.emailAccounts.clientFor(account),
      readState: s.readStatePusher,
      metrics: s.metrics,
      admission,
    },
    {
      concurrency: p.config.syncConcurrency,
      intervalSeconds: p.config.syncIntervalSeconds,
      runRequestsHere: p.options.runRequestedSyncs,
      role: p.options.syncRole,
    },
  );
}

/** `crm-admin sync resync` reads mail again through the sync's writer, under the account's sync lease,
 * with the same gate (erased addresses, retention) as the sync. */
export function mailResync(p: Plumbing, s: Mailboxes & { audit: AuditService }): ResyncService {
  const admission = new SuppressionFilter({ suppressions: p.suppressions, hasher: p.addressHasher, retentionDays: p.config.emailRetention.days });
  return new ResyncService({
    repository: new SyncRepository(p.sql),
    mailStore: p.mailStore,
    progress: new ResyncRepository(p.sql),
    transactions: p.transactions,
    clientFor: (account) => s.emailAccounts.clientFor(account),
    admission,
    audit: s.audit,
    logger: p.logger,
    intervalSeconds: p.config.syncIntervalSeconds,
  });
}

type Senders = Mailboxes & { emails: EmailService; contacts: ContactService; audit: AuditService; sessions: SessionService };

/** Sending writes the sent email with the sync's own writer, so the next sync finds it and never doubles it. */
export function sending(p: Plumbing, s: Senders): EmailSenderService {
  const { maxTotalBytes, rateLimit, rateWindowSeconds, uploadBudgetMb } = p.config.sending;
  return new EmailSenderService({
    accounts: p.accountAccess,
    emails: s.emails,
    contacts: s.contacts,
    mail: s.emailAccounts,
    sentWriter: new SentEmailWriter(p.mailStore, p.transactions),
    throttle: new SendThrottle(p.throttles, { points: rateLimit, durationSeconds: rateWindowSeconds }),
    idempotency: new SendIdempotency(new IdempotencyRepository(p.sql)),
    audit: s.audit,
    logger: p.logger,
    maxTotalBytes,
    uploadBudget: new UploadBudget(p.throttles, { megabytes: uploadBudgetMb, durationSeconds: rateWindowSeconds }),
    sessions: s.sessions,
  });
}
