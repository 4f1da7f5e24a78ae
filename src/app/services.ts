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
import { UserAdminService, type UserFileCleanup } from '../users/user-admin-service.js';
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
import { PgListener } from '../db/pg-listener.js';

/**
 * The composition root: every service is a plain class whose repositories and collaborators are
 * handed in here. HTTP routes, crm-admin commands and the sync job all receive this same object.
 */
export function buildServices(config: AppConfig, sequelize: Sequelize, logger: Logger, options: { runRequestedSyncs?: boolean; syncRole?: SyncRole } = {}) {
  // Per instance (not prom-client's global registry): HTTP middleware and mail sync both record here.
  const metrics = new AppMetrics();
  // One SQL runner and one transaction runner for every repository and service.
  const sql = new Sql(sequelize);
  const transactions = sequelizeTransactions(sequelize);
  const secretBox = new SecretBox(config.secrets.encryptionKey, config.secrets.oldEncryptionKeys);
  const hasher = new PasswordHasher(config.bcryptRounds);

  const auditRepository = new AuditRepository(sql);
  const audit = new AuditService(auditRepository, logger, transactions);

  const userRepository = new UserRepository();
  const users = new UserService({ repository: userRepository, transactions, hasher, audit, tempPasswordTtlDays: config.tempPasswordTtlDays });
  const auditQuery = new AuditQueryService(auditRepository, userRepository);

  const tokens = new TokenService(config.secrets.jwtAccessSecret, config.secrets.jwtRefreshSecret);
  const sessionRepository = new SessionRepository(sql);
  const sessions = new SessionService({
    sessions: sessionRepository,
    users: userRepository,
    transactions,
    tokens,
    audit,
    cache: new SessionCache(sequelize, sessionRepository, logger),
  });

  const throttles = new ThrottleRepository(sql);
  const emailAccountRepository = new EmailAccountRepository();
  // Who may do what on an email account (own or shared): one answer for every area.
  const memberRepository = new EmailAccountMemberRepository(sql);
  const accountAccess = new EmailAccountAccess(memberRepository);
  const ownership = new OwnershipTransfer(memberRepository, emailAccountRepository, audit);
  const emailAccountSharing = new EmailAccountSharingService({ members: memberRepository, access: accountAccess, ownership, transactions, audit });
  // mailSync is built below (it needs emailAccounts): the request reaches it once asked, not now.
  const syncRequests: SyncRequests = { requestSync: (accountId) => mailSync.requestSync(accountId) };
  const emailAccounts = new EmailAccountService({
    accounts: emailAccountRepository,
    members: memberRepository,
    access: accountAccess,
    transactions,
    secretBox,
    audit,
    validate: jmapCredentialValidator(config.jmapSessionUrl, config.jmapTimeoutMs),
    clientFactory: jmapClientFactory(config.jmapSessionUrl, config.jmapTimeoutMs),
    throttle: new CredentialThrottle(throttles),
    syncRequests,
  });
  const emailAccountAdmin = new EmailAccountAdminService(emailAccounts, emailAccountRepository);
  const passwordReseal = new PasswordReseal({ accounts: emailAccountRepository, secretBox, logger });

  const timesheets = new TimesheetService({
    timesheets: new TimesheetRepository(sql),
    transactions,
    storage: new LocalDirectoryStorage(config.timesheetDir),
    audit,
    logger,
    uploadLimits: config.uploadLimits,
    uploadRate: throttles.counter('timesheet_uploads', { points: config.uploadLimits.uploadsPerHour, durationSeconds: 3600 }),
  });
  const userFiles: UserFileCleanup = timesheets;
  const userAdmin = new UserAdminService({ repository: userRepository, transactions, users, hasher, sessions, emailAccounts, ownership, audit, files: userFiles });

  const loginThrottle = new LoginThrottle(throttles);
  const devices = new KnownDevices(config.secrets.jwtRefreshSecret);
  const auth = new AuthService({ users, userRepository, transactions, hasher, sessions, emailAccounts, audit, throttle: loginThrottle, devices });

  // Contacts and emails ask the same EmailAccountAccess (the accounts a user owns or that are shared with them).
  const contacts = new ContactService({ contacts: new ContactRepository(sql), accounts: accountAccess, transactions, audit });
  const emailRepository = new EmailRepository(sql);
  // The sync calls readStatePusher.push(account) at the start of each account's run to retry failed write-backs.
  const readStatePusher = new ReadStatePusher(emailRepository, emailAccounts, logger);
  const emails = new EmailService({ emails: emailRepository, accounts: accountAccess, pusher: readStatePusher, logger });
  const emailAttachments = new AttachmentDownloads({ emails, accounts: accountAccess, mail: emailAccounts, limits: config.attachmentDownloads });
  const emailHtml = new HtmlBodies({ accounts: accountAccess, mail: emailAccounts, logger });

  const mailStore = new MailStoreRepository(sql);
  // Erased addresses and EMAIL_RETENTION_DAYS: what the sync must not store (src/privacy).
  const addressHasher = new AddressHasher(config.secrets.encryptionKey, config.secrets.oldEncryptionKeys);
  const suppressions = new SuppressionRepository(sql);
  const mailAdmission = new SuppressionFilter({ suppressions, hasher: addressHasher, retentionDays: config.emailRetention.days });
  const mailSync = new SyncService(
    {
      repository: new SyncRepository(sql),
      mailStore,
      transactions,
      logger,
      clientFor: (account) => emailAccounts.clientFor(account),
      readState: readStatePusher,
      metrics,
      admission: mailAdmission,
    },
    { concurrency: config.syncConcurrency, intervalSeconds: config.syncIntervalSeconds, runRequestsHere: options.runRequestedSyncs, role: options.syncRole },
  );
  const archiveKeys = backupKeys({ current: config.secrets.encryptionKey, old: config.secrets.oldEncryptionKeys }, config.backupSigning);
  metrics.observeSync(() => mailSync.snapshot());
  const backupRepository = new BackupRepository(sequelize);
  const backup = new BackupService({ repository: backupRepository, storage: new LocalDirectoryStorage(config.timesheetDir), audit, keys: archiveKeys, logger });
  const restore = new RestoreService({ repository: backupRepository, files: new LocalFileRestorer(config.timesheetDir), audit, keys: archiveKeys, logger });
  // Sending writes the sent email with the sync's own writer, so the next sync finds it and never doubles it.
  const { maxTotalBytes, rateLimit, rateWindowSeconds, uploadBudgetMb } = config.sending;
  const sending = new EmailSenderService({
    accounts: accountAccess,
    emails,
    contacts,
    mail: emailAccounts,
    sentWriter: new SentEmailWriter(mailStore, transactions),
    throttle: new SendThrottle(throttles, { points: rateLimit, durationSeconds: rateWindowSeconds }),
    idempotency: new SendIdempotency(new IdempotencyRepository(sql)),
    audit,
    logger,
    maxTotalBytes,
    uploadBudget: new UploadBudget(throttles, { megabytes: uploadBudgetMb, durationSeconds: rateWindowSeconds }),
    sessions,
  });
  const retention = new RetentionService({
    transactions,
    maintenance: new MaintenanceRepository(sql),
    sessions: sessionRepository,
    auditRecords: auditRepository,
    throttles,
    audit,
    logger,
    auditRetentionDays: config.auditRetentionDays,
    emails: new EmailRetention(new EmailRetentionRepository(sql), transactions, config.emailRetention),
  });
  const privacy = new PrivacyService({
    erasure: new ErasureRepository(sql),
    exports: new ExportRepository(sql),
    suppressions,
    hasher: addressHasher,
    transactions,
    audit,
    logger,
  });
  // Live updates (GET /api/events): the database fills the outbox (migration 0021); the hub of an API
  // process follows it. Sessions are checked in the database, never in the session cache: a stream
  // ends on the very notification that evicts the cache.
  const outbox = new OutboxRepository(sql);
  const events = new EventHub({
    outbox,
    memberships: (userId) => memberRepository.membershipsOf(userId),
    session: async (sessionId, userId) => {
      const found = await sessionRepository.findActiveWithUser(sessionId, userId);
      return found && found.user.changedPassword ? { expiresAt: found.sessionExpiresAt } : undefined;
    },
    listen: (channels, handlers) => new PgListener(sequelize, channels, handlers, logger),
    metrics: (openStreams) => new EventMetrics(metrics, openStreams),
    logger,
    maxStreamsPerUser: config.eventsMaxStreamsPerUser,
  });
  const outboxPruner = new OutboxPruner(outbox, logger);
  // The staff lifecycle (issue 29): the colleague directory, disabling leavers, one's sessions, the month's timesheets.
  const userDirectory = new UserDirectory(userRepository);
  const userLifecycle = new UserLifecycleService({ repository: userRepository, transactions, sessions, audit });
  const sessionManagement = new SessionManagement({ sessions: sessionRepository, transactions, audit });
  const timesheetMonth = new TimesheetMonth({ timesheets: new TimesheetRepository(sql), storage: new LocalDirectoryStorage(config.timesheetDir), audit, logger });
  return {
    userDirectory,
    userLifecycle,
    sessionManagement,
    timesheetMonth,
    events,
    outboxPruner,
    sending,
    audit,
    hasher,
    secretBox,
    users,
    tokens,
    sessions,
    auth,
    emailAccounts,
    emailAccountSharing,
    mailSync,
    userAdmin,
    auditQuery,
    emailAccountAdmin,
    timesheets,
    metrics,
    contacts,
    emails,
    readStatePusher,
    emailAttachments,
    emailHtml,
    backup,
    restore,
    passwordReseal,
    retention,
    privacy,
  };
}

export type Services = ReturnType<typeof buildServices>;
