import type { AuditService } from '../../audit/audit-service.js';
import type { SessionService } from '../../auth/session-service.js';
import type { ContactService } from '../../contacts/contact-service.js';
import type { EmailAccountService } from '../../email-accounts/email-account-service.js';
import type { AttachmentDownloads } from '../../emails/attachment-download.js';
import type { EmailService } from '../../emails/email-service.js';
import type { HtmlBodies } from '../../emails/html-bodies.js';
import type { HtmlRenderPool } from '../../emails/html-render-pool.js';
import type { ReadStatePusher } from '../../emails/read-state-pusher.js';
import type { AppMetrics } from '../../metrics/metrics.js';
import type { ApiTokenService } from '../../api-tokens/api-token-service.js';
import type { EmailSenderService } from '../../sending/email-sender-service.js';
import type { ContentSources } from '../../sending/message-content.js';
import type { PersonService } from '../../people/person-service.js';
import type { DraftKeeper } from '../../sending/failed-send.js';
import type { SyncService } from '../../sync/sync-service.js';
import type { ResyncService } from '../../sync/resync-service.js';
import type { SyncStatusService } from '../../sync/sync-status-service.js';
import { lazyModule } from './lazy-module.js';
import type { Plumbing } from './plumbing.js';
import type * as attachmentDownloadExports from '../../emails/attachment-download.js';
import type * as emailServiceExports from '../../emails/email-service.js';
import type * as htmlBodiesExports from '../../emails/html-bodies.js';
import type * as htmlRenderPoolExports from '../../emails/html-render-pool.js';
import type * as concurrencyGateExports from '../../shared/concurrency-gate.js';
import type * as readStatePusherExports from '../../emails/read-state-pusher.js';
import type * as suppressionFilterExports from '../../privacy/suppression-filter.js';
import type * as emailSenderServiceExports from '../../sending/email-sender-service.js';
import type * as idempotencyRepositoryExports from '../../sending/idempotency-repository.js';
import type * as idempotencyExports from '../../sending/idempotency.js';
import type * as sendThrottleExports from '../../sending/send-throttle.js';
import type * as sentEmailWriterExports from '../../sync/sent-email-writer.js';
import type * as syncRepositoryExports from '../../sync/sync-repository.js';
import type * as syncServiceExports from '../../sync/sync-service.js';
import type * as syncStatusServiceExports from '../../sync/sync-status-service.js';
import type * as resyncRepositoryExports from '../../sync/resync-repository.js';
import type * as resyncServiceExports from '../../sync/resync-service.js';

// Each service's module loads with the first part that needs it (ADR 0124).
const attachmentDownloadModule = lazyModule<typeof attachmentDownloadExports>(import.meta.url, '../../emails/attachment-download.js');
const emailServiceModule = lazyModule<typeof emailServiceExports>(import.meta.url, '../../emails/email-service.js');
const htmlBodiesModule = lazyModule<typeof htmlBodiesExports>(import.meta.url, '../../emails/html-bodies.js');
const htmlRenderPoolModule = lazyModule<typeof htmlRenderPoolExports>(import.meta.url, '../../emails/html-render-pool.js');
const concurrencyGateModule = lazyModule<typeof concurrencyGateExports>(import.meta.url, '../../shared/concurrency-gate.js');
const readStatePusherModule = lazyModule<typeof readStatePusherExports>(import.meta.url, '../../emails/read-state-pusher.js');
const suppressionFilterModule = lazyModule<typeof suppressionFilterExports>(import.meta.url, '../../privacy/suppression-filter.js');
const emailSenderServiceModule = lazyModule<typeof emailSenderServiceExports>(import.meta.url, '../../sending/email-sender-service.js');
const idempotencyRepositoryModule = lazyModule<typeof idempotencyRepositoryExports>(import.meta.url, '../../sending/idempotency-repository.js');
const idempotencyModule = lazyModule<typeof idempotencyExports>(import.meta.url, '../../sending/idempotency.js');
const sendThrottleModule = lazyModule<typeof sendThrottleExports>(import.meta.url, '../../sending/send-throttle.js');
const sentEmailWriterModule = lazyModule<typeof sentEmailWriterExports>(import.meta.url, '../../sync/sent-email-writer.js');
const syncRepositoryModule = lazyModule<typeof syncRepositoryExports>(import.meta.url, '../../sync/sync-repository.js');
const syncStatusServiceModule = lazyModule<typeof syncStatusServiceExports>(import.meta.url, '../../sync/sync-status-service.js');
const syncServiceModule = lazyModule<typeof syncServiceExports>(import.meta.url, '../../sync/sync-service.js');
const resyncRepositoryModule = lazyModule<typeof resyncRepositoryExports>(import.meta.url, '../../sync/resync-repository.js');
const resyncServiceModule = lazyModule<typeof resyncServiceExports>(import.meta.url, '../../sync/resync-service.js');

// Mail: the stored emails (src/emails), the mail sync (src/sync) and sending (src/sending). Contacts
// and emails ask the same EmailAccountAccess (the accounts a user owns or that are shared with them).

interface Mailboxes {
  emailAccounts: EmailAccountService;
}

/** The sync calls push(account) at the start of each account's run to retry failed write-backs. */
export function readStatePusher(p: Plumbing, s: Mailboxes): ReadStatePusher {
  return new (readStatePusherModule().ReadStatePusher)(p.emailRepository, s.emailAccounts, p.logger);
}

export function emails(p: Plumbing, s: { readStatePusher: ReadStatePusher }): EmailService {
  return new (emailServiceModule().EmailService)({ emails: p.emailRepository, accounts: p.accountAccess, pusher: s.readStatePusher, logger: p.logger });
}

export function emailAttachments(p: Plumbing, s: Mailboxes & { emails: EmailService }): AttachmentDownloads {
  return new (attachmentDownloadModule().AttachmentDownloads)({ emails: s.emails, accounts: p.accountAccess, mail: s.emailAccounts, limits: p.config.attachmentDownloads });
}

const HTML_RENDERS_BUSY = 'Príliš veľa súbežne otváraných emailov; skúste to o chvíľu znova';

/** The worker threads that clean HTML bodies (ADR 0162); the service's shutdown closes them. */
export function htmlRenderPool(p: Plumbing): HtmlRenderPool {
  const { threads, timeoutMs } = p.config.htmlRendering;
  return new (htmlRenderPoolModule().HtmlRenderPool)({ threads, timeoutMs, logger: p.logger });
}

export function emailHtml(p: Plumbing, s: Mailboxes & { htmlRenderPool: HtmlRenderPool }): HtmlBodies {
  const { perUser, pageMaxBytes } = p.config.htmlRendering;
  return new (htmlBodiesModule().HtmlBodies)({
    accounts: p.accountAccess,
    mail: s.emailAccounts,
    logger: p.logger,
    pool: s.htmlRenderPool,
    // Per user only: the pool's threads and queue bound the process as a whole.
    renders: new (concurrencyGateModule().ConcurrencyGate)({ perKey: perUser, total: Number.POSITIVE_INFINITY }, HTML_RENDERS_BUSY, 2),
    pageMaxBytes,
  });
}

/** Erased addresses and EMAIL_RETENTION_DAYS: what the sync must not store (src/privacy). */
export function mailSync(p: Plumbing, s: Mailboxes & { readStatePusher: ReadStatePusher; metrics: AppMetrics }): SyncService {
  const admission = () =>
    p.once(
      'syncAdmission',
      () =>
        new (suppressionFilterModule().SuppressionFilter)({
          suppressions: p.suppressions,
          hasher: p.addressHasher,
          hashKeys: p.privacyHashKeys,
          retentionDays: p.config.emailRetention.days,
        }),
    );
  return new (syncServiceModule().SyncService)(
    {
      repository: new (syncRepositoryModule().SyncRepository)(p.sql),
      mailStore: p.mailStore,
      transactions: p.transactions,
      logger: p.logger,
      clientFor: (account) => s.emailAccounts.clientFor(account),
      // Built when a sync runs: `sync status` reads the state and needs none of these.
      get readState() {
        return s.readStatePusher;
      },
      get metrics() {
        return s.metrics;
      },
      get admission() {
        return admission();
      },
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
export function syncStatus(p: Plumbing): SyncStatusService {
  return new (syncStatusServiceModule().SyncStatusService)(new (syncRepositoryModule().SyncRepository)(p.sql));
}

export function mailResync(p: Plumbing, s: Mailboxes & { audit: AuditService }): ResyncService {
  const admission = new (suppressionFilterModule().SuppressionFilter)({
    suppressions: p.suppressions,
    hasher: p.addressHasher,
    hashKeys: p.privacyHashKeys,
    retentionDays: p.config.emailRetention.days,
  });
  return new (resyncServiceModule().ResyncService)({
    repository: new (syncRepositoryModule().SyncRepository)(p.sql),
    mailStore: p.mailStore,
    progress: new (resyncRepositoryModule().ResyncRepository)(p.sql),
    transactions: p.transactions,
    clientFor: (account) => s.emailAccounts.clientFor(account),
    admission,
    audit: s.audit,
    logger: p.logger,
    intervalSeconds: p.config.syncIntervalSeconds,
  });
}

type Senders = Mailboxes & {
  emails: EmailService;
  contacts: ContactService;
  people: PersonService;
  audit: AuditService;
  sessions: SessionService;
  apiTokens: ApiTokenService;
} & ContentSources & {
    drafts: DraftKeeper;
  };

/** Sending writes the sent email with the sync's own writer, so the next sync finds it and never doubles it. */
export function sending(p: Plumbing, s: Senders): EmailSenderService {
  const { maxTotalBytes, rateLimit, rateWindowSeconds, uploadBudgetMb } = p.config.sending;
  return new (emailSenderServiceModule().EmailSenderService)({
    accounts: p.accountAccess,
    emails: s.emails,
    contacts: s.contacts,
    people: s.people,
    mail: s.emailAccounts,
    sentWriter: new (sentEmailWriterModule().SentEmailWriter)(p.mailStore, p.transactions),
    throttle: new (sendThrottleModule().SendThrottle)(p.throttles, { points: rateLimit, durationSeconds: rateWindowSeconds }),
    idempotency: new (idempotencyModule().SendIdempotency)(new (idempotencyRepositoryModule().IdempotencyRepository)(p.sql)),
    audit: s.audit,
    logger: p.logger,
    maxTotalBytes,
    uploadBudget: new (sendThrottleModule().UploadBudget)(p.throttles, { megabytes: uploadBudgetMb, durationSeconds: rateWindowSeconds }),
    sessions: s.sessions,
    apiTokens: s.apiTokens,
    content: { signatures: s.signatures, templates: s.templates },
    drafts: s.drafts,
  });
}
