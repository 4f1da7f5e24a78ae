import type { Sequelize } from 'sequelize';
import type { AppConfig } from '../config/config.js';
import type { Logger } from '../logging/logger.js';
import { AuditService } from '../audit/audit-service.js';
import { SecretBox } from '../crypto/secret-box.js';
import { PasswordHasher } from '../users/password-hasher.js';
import { UserService } from '../users/user-service.js';
import { SyncService } from '../sync/sync-service.js';
import { SessionService } from '../auth/session-service.js';
import { TokenService } from '../auth/token-service.js';
import { AppMetrics } from '../metrics/metrics.js';
import { AuthService } from '../auth/auth-service.js';
import { LoginThrottle } from '../auth/login-throttle.js';
import { jmapClientFactory, jmapCredentialValidator } from '../email-accounts/credential-validator.js';
import { EmailAccountService } from '../email-accounts/email-account-service.js';
import { UserAdminService, type UserFileCleanup } from '../users/user-admin-service.js';
import { AuditQueryService } from '../audit/audit-query-service.js';
import { EmailAccountAdminService } from '../email-accounts/email-account-admin-service.js';
import { LocalDirectoryStorage } from '../timesheets/local-storage.js';
import { TimesheetService } from '../timesheets/timesheet-service.js';
import { ContactService } from '../contacts/contact-service.js';
import { EmailService } from '../emails/email-service.js';
import { ReadStatePusher } from '../emails/read-state-pusher.js';
import { BackupRepository } from '../backup/backup-repository.js';
import { BackupService } from '../backup/backup-service.js';
import { LocalFileRestorer } from '../backup/file-restorer.js';
import { RestoreService } from '../backup/restore-service.js';

/**
 * The composition root: every service is a plain class whose dependencies are handed in here.
 * HTTP routes, crm-admin commands and the sync job all receive this same object.
 */
export function buildServices(config: AppConfig, sequelize: Sequelize, logger: Logger) {
  // Per instance (not prom-client's global registry): HTTP middleware and mail sync both record here.
  const metrics = new AppMetrics();
  const audit = new AuditService(logger);
  const hasher = new PasswordHasher(config.bcryptRounds);
  const secretBox = new SecretBox(config.secrets.encryptionKey, config.secrets.oldEncryptionKeys);
  const users = new UserService(sequelize, hasher, audit, config.tempPasswordTtlDays);
  const tokens = new TokenService(config.secrets.jwtAccessSecret, config.secrets.jwtRefreshSecret);
  const sessions = new SessionService(sequelize, tokens, audit, { logger });
  const emailAccounts = new EmailAccountService(
    sequelize,
    secretBox,
    audit,
    jmapCredentialValidator(config.jmapSessionUrl, config.jmapTimeoutMs),
    jmapClientFactory(config.jmapSessionUrl, config.jmapTimeoutMs),
  );
  const timesheets = new TimesheetService(sequelize, new LocalDirectoryStorage(config.timesheetDir), audit, logger);
  const userFiles: UserFileCleanup = timesheets;
  const userAdmin = new UserAdminService({ sequelize, users, hasher, sessions, emailAccounts, audit, files: userFiles });
  const auditQuery = new AuditQueryService(sequelize);
  const emailAccountAdmin = new EmailAccountAdminService(emailAccounts);
  const loginThrottle = new LoginThrottle(sequelize);
  const auth = new AuthService(sequelize, users, hasher, sessions, emailAccounts, audit, loginThrottle);
  const contacts = new ContactService(sequelize, audit);
  // The sync calls readStatePusher.push(account) at the start of each account's run to retry failed write-backs.
  const readStatePusher = new ReadStatePusher(sequelize, emailAccounts, logger);
  const emails = new EmailService(sequelize, contacts, readStatePusher, logger);
  const mailSync = new SyncService({
    sequelize,
    logger,
    clientFor: (account) => emailAccounts.clientFor(account),
    readState: readStatePusher,
    metrics,
  });
  const encryptionKeys = { current: config.secrets.encryptionKey, old: config.secrets.oldEncryptionKeys };
  const backupRepository = new BackupRepository(sequelize);
  const backup = new BackupService({ repository: backupRepository, storage: new LocalDirectoryStorage(config.timesheetDir), audit, keys: encryptionKeys, logger });
  const restore = new RestoreService({ repository: backupRepository, files: new LocalFileRestorer(config.timesheetDir), audit, keys: encryptionKeys, logger });
  return { audit, hasher, secretBox, users, tokens, sessions, auth, emailAccounts, mailSync, userAdmin, auditQuery, emailAccountAdmin, timesheets, metrics, contacts, emails, readStatePusher, backup, restore };
}

export type Services = ReturnType<typeof buildServices>;
