import type { Sequelize } from 'sequelize';
import type { AppConfig } from '../config/config.js';
import type { Logger } from '../logging/logger.js';
import { Sql } from '../db/sql.js';
import { sequelizeTransactions } from '../db/transactions.js';
import { SecretBox } from '../crypto/secret-box.js';
import { AppMetrics } from '../metrics/metrics.js';
import { AuditService } from '../audit/audit-service.js';
import { AuditRepository } from '../audit/audit-repository.js';
import { AuditQueryService } from '../audit/audit-query-service.js';
import { PasswordHasher } from '../users/password-hasher.js';
import { UserService } from '../users/user-service.js';
import { UserRepository } from '../users/user-repository.js';
import { UserAdminService } from '../users/user-admin-service.js';
import { AuthService } from '../auth/auth-service.js';
import { KnownDevices } from '../auth/known-device.js';
import { LoginThrottle } from '../auth/login-throttle.js';
import { SessionCache } from '../auth/session-cache.js';
import { SessionRepository } from '../auth/session-repository.js';
import { SessionService } from '../auth/session-service.js';
import { ThrottleRepository } from '../auth/throttle-repository.js';
import { TokenService } from '../auth/token-service.js';
import { EmailAccountAccess } from '../email-accounts/account-access.js';
import { jmapClientFactory, jmapCredentialValidator } from '../email-accounts/credential-validator.js';
import { CredentialThrottle } from '../email-accounts/credential-throttle.js';
import { EmailAccountAdminService } from '../email-accounts/email-account-admin-service.js';
import { EmailAccountRepository } from '../email-accounts/email-account-repository.js';
import { EmailAccountService } from '../email-accounts/email-account-service.js';
import { PasswordReseal } from '../email-accounts/password-seal.js';
import { EmailAccountMemberRepository } from '../email-accounts/member-repository.js';
import { EmailAccountSharingService } from '../email-accounts/email-account-sharing-service.js';
import { OwnershipTransfer } from '../email-accounts/ownership-transfer.js';
import type { SyncRequests } from '../email-accounts/sync-requests.js';
import { LocalDirectoryStorage } from '../timesheets/local-storage.js';
import { TimesheetRepository } from '../timesheets/timesheet-repository.js';
import { TimesheetService } from '../timesheets/timesheet-service.js';
import { ContactRepository } from '../contacts/contact-repository.js';
import { ContactService } from '../contacts/contact-service.js';
import { EmailRepository } from '../emails/email-repository.js';
import { EmailService } from '../emails/email-service.js';
import { ReadStatePusher } from '../emails/read-state-pusher.js';
import { AttachmentDownloads } from '../emails/attachment-download.js';
import { HtmlBodies } from '../emails/html-bodies.js';
import { MailStoreRepository } from '../sync/mail-store-repository.js';
import { SyncRepository } from '../sync/sync-repository.js';
import { SyncService } from '../sync/sync-service.js';
import type { SyncRole } from '../sync/lease-holder.js';
import { BackupRepository } from '../backup/backup-repository.js';
import { BackupService } from '../backup/backup-service.js';
import { LocalFileRestorer } from '../backup/file-restorer.js';
import { RestoreService } from '../backup/restore-service.js';
import { backupKeys } from '../backup/signing.js';
import { SentEmailWriter } from '../sync/sent-email-writer.js';
import { EmailSenderService } from '../sending/email-sender-service.js';
import { IdempotencyRepository } from '../sending/idempotency-repository.js';
import { SendIdempotency } from '../sending/idempotency.js';
import { SendThrottle, UploadBudget } from '../sending/send-throttle.js';
import { MaintenanceRepository } from '../maintenance/maintenance-repository.js';
import { UserDirectory } from '../users/user-directory.js';
import { UserLifecycleService } from '../users/user-lifecycle-service.js';
import { SessionManagement } from '../auth/session-management.js';
import { TimesheetMonth } from '../timesheets/timesheet-month.js';
import { RetentionService } from '../maintenance/retention-service.js';
import { AddressHasher } from '../privacy/address-hash.js';
import { EmailRetention } from '../privacy/email-retention.js';
import { EmailRetentionRepository } from '../privacy/email-retention-repository.js';
import { ErasureRepository } from '../privacy/erasure-repository.js';
import { ExportRepository } from '../privacy/export-repository.js';
import { PrivacyService } from '../privacy/privacy-service.js';
import { SuppressionFilter } from '../privacy/suppression-filter.js';
import { SuppressionRepository } from '../privacy/suppression-repository.js';
import { EventHub } from '../events/event-hub.js';
import { EventMetrics } from '../events/event-metrics.js';
import { OutboxRepository } from '../events/outbox-repository.js';
import { OutboxPruner } from '../events/outbox-pruner.js';
import { SharedListener } from '../db/shared-listener.js';
import { AUTH_CHANGE_CHANNEL } from '../auth/session-cache.js';
import { EVENTS_CHANNEL } from '../events/outbox-repository.js';
import { FollowUpRepository } from '../follow-ups/follow-up-repository.js';
import { FollowUpService } from '../follow-ups/follow-up-service.js';
import { FollowUpDueJob } from '../follow-ups/follow-up-due-job.js';

/**
 * The composition root: every service is a plain class whose repositories and collaborators are
 * handed in here. HTTP routes, crm-admin commands and the sync job all receive this same object.
 *
 * Every part is built on first use and then kept (ADR 0113): a crm-admin command asks for one area
 * and builds only it and what it needs, never the event hub, the sync or the metrics registry of a
 * serving instance. Heavy libraries load where they are used (src/shared/lazy-require.ts), so a part
 * that is never built costs nothing but its own small module. The getters' order follows the areas.
 */
export class Services {
  private readonly parts = new Map<string, unknown>();

  constructor(
    private readonly config: AppConfig,
    private readonly sequelize: Sequelize,
    private readonly logger: Logger,
    private readonly options: { runRequestedSyncs?: boolean; syncRole?: SyncRole } = {},
  ) {}

  /** Builds the part the first time it is asked for; the same instance afterwards. */
  private once<T>(name: string, build: () => T): T {
    if (!this.parts.has(name)) this.parts.set(name, build());
    return this.parts.get(name) as T;
  }

  /** Whether a part has been built (shutdown closes only what exists). */
  isBuilt(name: keyof Services): boolean {
    return this.parts.has(name);
  }

  // Shared plumbing: one SQL runner and one transaction runner for every repository and service.
  private get sql(): Sql {
    return this.once('sql', () => new Sql(this.sequelize));
  }
  private get transactions() {
    return this.once('transactions', () => sequelizeTransactions(this.sequelize));
  }
  private get throttles(): ThrottleRepository {
    return this.once('throttles', () => new ThrottleRepository(this.sql));
  }
  private get storage(): LocalDirectoryStorage {
    return this.once('storage', () => new LocalDirectoryStorage(this.config.timesheetDir));
  }
  /** Per instance (not prom-client's global registry): HTTP middleware and mail sync both record here. */
  get metrics(): AppMetrics {
    return this.once('metrics', () => {
      const metrics = new AppMetrics();
      // Read at each scrape: the sync of a serving instance exists by then.
      metrics.observeSync(() => this.mailSync.snapshot());
      return metrics;
    });
  }
  get secretBox(): SecretBox {
    return this.once('secretBox', () => new SecretBox(this.config.secrets.encryptionKey, this.config.secrets.oldEncryptionKeys));
  }
  /** The one LISTEN connection of the process (session cache and event hub), opened on first use. */
  private get listener(): SharedListener {
    return this.once('listener', () => new SharedListener(this.sequelize, [EVENTS_CHANNEL, AUTH_CHANGE_CHANNEL], this.logger));
  }
  get hasher(): PasswordHasher {
    return this.once('hasher', () => new PasswordHasher(this.config.bcryptRounds));
  }

  // Audit
  private get auditRepository(): AuditRepository {
    return this.once('auditRepository', () => new AuditRepository(this.sql));
  }
  get audit(): AuditService {
    return this.once('audit', () => new AuditService(this.auditRepository, this.logger, this.transactions));
  }
  get auditQuery(): AuditQueryService {
    return this.once('auditQuery', () => new AuditQueryService(this.auditRepository, this.userRepository));
  }

  // Users and sessions
  private get userRepository(): UserRepository {
    return this.once('userRepository', () => new UserRepository());
  }
  get users(): UserService {
    return this.once(
      'users',
      () =>
        new UserService({
          repository: this.userRepository,
          transactions: this.transactions,
          hasher: this.hasher,
          audit: this.audit,
          tempPasswordTtlDays: this.config.tempPasswordTtlDays,
        }),
    );
  }
  get tokens(): TokenService {
    return this.once('tokens', () => new TokenService(this.config.secrets.jwtAccessSecret, this.config.secrets.jwtRefreshSecret));
  }
  private get sessionRepository(): SessionRepository {
    return this.once('sessionRepository', () => new SessionRepository(this.sql));
  }
  get sessions(): SessionService {
    return this.once(
      'sessions',
      () =>
        new SessionService({
          sessions: this.sessionRepository,
          users: this.userRepository,
          transactions: this.transactions,
          tokens: this.tokens,
          audit: this.audit,
          cache: new SessionCache((channels, handlers) => this.listener.subscribe(channels, handlers), this.sessionRepository, this.logger),
        }),
    );
  }
  get userAdmin(): UserAdminService {
    return this.once(
      'userAdmin',
      () =>
        new UserAdminService({
          repository: this.userRepository,
          transactions: this.transactions,
          users: this.users,
          hasher: this.hasher,
          sessions: this.sessions,
          emailAccounts: this.emailAccounts,
          ownership: this.ownership,
          audit: this.audit,
          files: this.timesheets,
        }),
    );
  }
  get auth(): AuthService {
    return this.once(
      'auth',
      () =>
        new AuthService({
          users: this.users,
          userRepository: this.userRepository,
          transactions: this.transactions,
          hasher: this.hasher,
          sessions: this.sessions,
          emailAccounts: this.emailAccounts,
          audit: this.audit,
          throttle: new LoginThrottle(this.throttles),
          devices: new KnownDevices(this.config.secrets.jwtRefreshSecret),
        }),
    );
  }
  // The staff lifecycle (issue 29): the colleague directory, disabling leavers, one's sessions.
  get userDirectory(): UserDirectory {
    return this.once('userDirectory', () => new UserDirectory(this.userRepository));
  }
  get userLifecycle(): UserLifecycleService {
    return this.once(
      'userLifecycle',
      () => new UserLifecycleService({ repository: this.userRepository, transactions: this.transactions, sessions: this.sessions, audit: this.audit }),
    );
  }
  get sessionManagement(): SessionManagement {
    return this.once('sessionManagement', () => new SessionManagement({ sessions: this.sessionRepository, transactions: this.transactions, audit: this.audit }));
  }

  // Email accounts: who may do what on an account (own or shared) is one answer for every area.
  private get emailAccountRepository(): EmailAccountRepository {
    return this.once('emailAccountRepository', () => new EmailAccountRepository());
  }
  private get memberRepository(): EmailAccountMemberRepository {
    return this.once('memberRepository', () => new EmailAccountMemberRepository(this.sql));
  }
  private get accountAccess(): EmailAccountAccess {
    return this.once('accountAccess', () => new EmailAccountAccess(this.memberRepository));
  }
  private get ownership(): OwnershipTransfer {
    return this.once('ownership', () => new OwnershipTransfer(this.memberRepository, this.emailAccountRepository, this.audit));
  }
  get emailAccountSharing(): EmailAccountSharingService {
    return this.once(
      'emailAccountSharing',
      () =>
        new EmailAccountSharingService({
          members: this.memberRepository,
          access: this.accountAccess,
          ownership: this.ownership,
          transactions: this.transactions,
          audit: this.audit,
        }),
    );
  }
  get emailAccounts(): EmailAccountService {
    const { jmapSessionUrl, jmapTimeoutMs } = this.config;
    // The sync is reached once a sync is asked for, not when the accounts are built.
    const syncRequests: SyncRequests = { requestSync: (accountId) => this.mailSync.requestSync(accountId) };
    return this.once(
      'emailAccounts',
      () =>
        new EmailAccountService({
          accounts: this.emailAccountRepository,
          members: this.memberRepository,
          access: this.accountAccess,
          transactions: this.transactions,
          secretBox: this.secretBox,
          audit: this.audit,
          validate: jmapCredentialValidator(jmapSessionUrl, jmapTimeoutMs),
          clientFactory: jmapClientFactory(jmapSessionUrl, jmapTimeoutMs),
          throttle: new CredentialThrottle(this.throttles),
          syncRequests,
        }),
    );
  }
  get emailAccountAdmin(): EmailAccountAdminService {
    return this.once('emailAccountAdmin', () => new EmailAccountAdminService(this.emailAccounts, this.emailAccountRepository));
  }
  get passwordReseal(): PasswordReseal {
    return this.once('passwordReseal', () => new PasswordReseal({ accounts: this.emailAccountRepository, secretBox: this.secretBox, logger: this.logger }));
  }

  // Timesheets
  get timesheets(): TimesheetService {
    return this.once('timesheets', () => {
      const { uploadLimits } = this.config;
      return new TimesheetService({
        timesheets: new TimesheetRepository(this.sql),
        transactions: this.transactions,
        storage: this.storage,
        audit: this.audit,
        logger: this.logger,
        uploadLimits,
        uploadRate: this.throttles.counter('timesheet_uploads', { points: uploadLimits.uploadsPerHour, durationSeconds: 3600 }),
      });
    });
  }
  get timesheetMonth(): TimesheetMonth {
    return this.once('timesheetMonth', () => new TimesheetMonth({ timesheets: new TimesheetRepository(this.sql), storage: this.storage, audit: this.audit, logger: this.logger }));
  }

  // Contacts and emails ask the same EmailAccountAccess (the accounts a user owns or that are shared with them).
  get contacts(): ContactService {
    return this.once(
      'contacts',
      () => new ContactService({ contacts: new ContactRepository(this.sql), accounts: this.accountAccess, transactions: this.transactions, audit: this.audit }),
    );
  }
  private get emailRepository(): EmailRepository {
    return this.once('emailRepository', () => new EmailRepository(this.sql));
  }
  /** The sync calls push(account) at the start of each account's run to retry failed write-backs. */
  get readStatePusher(): ReadStatePusher {
    return this.once('readStatePusher', () => new ReadStatePusher(this.emailRepository, this.emailAccounts, this.logger));
  }
  get emails(): EmailService {
    return this.once('emails', () => new EmailService({ emails: this.emailRepository, accounts: this.accountAccess, pusher: this.readStatePusher, logger: this.logger }));
  }
  get emailAttachments(): AttachmentDownloads {
    return this.once(
      'emailAttachments',
      () => new AttachmentDownloads({ emails: this.emails, accounts: this.accountAccess, mail: this.emailAccounts, limits: this.config.attachmentDownloads }),
    );
  }
  get emailHtml(): HtmlBodies {
    return this.once('emailHtml', () => new HtmlBodies({ accounts: this.accountAccess, mail: this.emailAccounts, logger: this.logger }));
  }

  // Mail sync. Erased addresses and EMAIL_RETENTION_DAYS: what the sync must not store (src/privacy).
  private get mailStore(): MailStoreRepository {
    return this.once('mailStore', () => new MailStoreRepository(this.sql));
  }
  private get addressHasher(): AddressHasher {
    return this.once('addressHasher', () => new AddressHasher(this.config.secrets.encryptionKey, this.config.secrets.oldEncryptionKeys));
  }
  private get suppressions(): SuppressionRepository {
    return this.once('suppressions', () => new SuppressionRepository(this.sql));
  }
  get mailSync(): SyncService {
    return this.once('mailSync', () => {
      const admission = new SuppressionFilter({ suppressions: this.suppressions, hasher: this.addressHasher, retentionDays: this.config.emailRetention.days });
      return new SyncService(
        {
          repository: new SyncRepository(this.sql),
          mailStore: this.mailStore,
          transactions: this.transactions,
          logger: this.logger,
          clientFor: (account) => this.emailAccounts.clientFor(account),
          readState: this.readStatePusher,
          metrics: this.metrics,
          admission,
        },
        {
          concurrency: this.config.syncConcurrency,
          intervalSeconds: this.config.syncIntervalSeconds,
          runRequestsHere: this.options.runRequestedSyncs,
          role: this.options.syncRole,
        },
      );
    });
  }

  // Sending writes the sent email with the sync's own writer, so the next sync finds it and never doubles it.
  get sending(): EmailSenderService {
    return this.once('sending', () => {
      const { maxTotalBytes, rateLimit, rateWindowSeconds, uploadBudgetMb } = this.config.sending;
      return new EmailSenderService({
        accounts: this.accountAccess,
        emails: this.emails,
        contacts: this.contacts,
        mail: this.emailAccounts,
        sentWriter: new SentEmailWriter(this.mailStore, this.transactions),
        throttle: new SendThrottle(this.throttles, { points: rateLimit, durationSeconds: rateWindowSeconds }),
        idempotency: new SendIdempotency(new IdempotencyRepository(this.sql)),
        audit: this.audit,
        logger: this.logger,
        maxTotalBytes,
        uploadBudget: new UploadBudget(this.throttles, { megabytes: uploadBudgetMb, durationSeconds: rateWindowSeconds }),
        sessions: this.sessions,
      });
    });
  }

  // Backup and restore
  private get backupRepository(): BackupRepository {
    return this.once('backupRepository', () => new BackupRepository(this.sequelize));
  }
  private get encryptionKeys() {
    return backupKeys({ current: this.config.secrets.encryptionKey, old: this.config.secrets.oldEncryptionKeys }, this.config.backupSigning);
  }
  get backup(): BackupService {
    return this.once(
      'backup',
      () => new BackupService({ repository: this.backupRepository, storage: this.storage, audit: this.audit, keys: this.encryptionKeys, logger: this.logger }),
    );
  }
  get restore(): RestoreService {
    return this.once(
      'restore',
      () =>
        new RestoreService({
          repository: this.backupRepository,
          files: new LocalFileRestorer(this.config.timesheetDir),
          audit: this.audit,
          keys: this.encryptionKeys,
          logger: this.logger,
        }),
    );
  }

  // Retention and privacy
  get retention(): RetentionService {
    return this.once(
      'retention',
      () =>
        new RetentionService({
          transactions: this.transactions,
          maintenance: new MaintenanceRepository(this.sql),
          sessions: this.sessionRepository,
          auditRecords: this.auditRepository,
          throttles: this.throttles,
          audit: this.audit,
          logger: this.logger,
          auditRetentionDays: this.config.auditRetentionDays,
          emails: new EmailRetention(new EmailRetentionRepository(this.sql), this.transactions, this.config.emailRetention),
        }),
    );
  }
  get privacy(): PrivacyService {
    return this.once(
      'privacy',
      () =>
        new PrivacyService({
          erasure: new ErasureRepository(this.sql),
          exports: new ExportRepository(this.sql),
          suppressions: this.suppressions,
          hasher: this.addressHasher,
          transactions: this.transactions,
          audit: this.audit,
          logger: this.logger,
        }),
    );
  }

  // Live updates (GET /api/events): the database fills the outbox (migration 0021); the hub of an API
  // process follows it. Sessions are checked in the database, never in the session cache: a stream
  // ends on the very notification that evicts the cache.
  private get outbox(): OutboxRepository {
    return this.once('outbox', () => new OutboxRepository(this.sql));
  }
  get events(): EventHub {
    return this.once(
      'events',
      () =>
        new EventHub({
          outbox: this.outbox,
          memberships: (userId) => this.memberRepository.membershipsOf(userId),
          session: async (sessionId, userId) => {
            const found = await this.sessionRepository.findActiveWithUser(sessionId, userId);
            return found && found.user.changedPassword ? { expiresAt: found.sessionExpiresAt } : undefined;
          },
          listen: (channels, handlers) => this.listener.subscribe(channels, handlers),
          metrics: (openStreams) => new EventMetrics(this.metrics, openStreams),
          logger: this.logger,
          maxStreamsPerUser: this.config.eventsMaxStreamsPerUser,
        }),
    );
  }
  get outboxPruner(): OutboxPruner {
    return this.once('outboxPruner', () => new OutboxPruner(this.outbox, this.logger));
  }

  // Follow-ups (branch followups, issue 38): private reminders per contact and user; the due job of
  // every serve announces them through the events outbox (ADR 0119).
  private get followUpRepository(): FollowUpRepository {
    return this.once('followUpRepository', () => new FollowUpRepository(this.sql));
  }
  get followUps(): FollowUpService {
    return this.once('followUps', () => new FollowUpService({ followUps: this.followUpRepository, accounts: this.accountAccess, transactions: this.transactions }));
  }
  get followUpDue(): FollowUpDueJob {
    return this.once('followUpDue', () => new FollowUpDueJob(this.followUpRepository, this.transactions, this.logger));
  }
}

/** The composition root of one process; nothing is built until it is asked for (see Services). */
export function buildServices(config: AppConfig, sequelize: Sequelize, logger: Logger, options: { runRequestedSyncs?: boolean; syncRole?: SyncRole } = {}): Services {
  return new Services(config, sequelize, logger, options);
}
