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
import { LoginThrottle } from '../auth/login-throttle.js';
import { SessionCache } from '../auth/session-cache.js';
import { SessionRepository } from '../auth/session-repository.js';
import { SessionService } from '../auth/session-service.js';
import { ThrottleRepository } from '../auth/throttle-repository.js';
import { TokenService } from '../auth/token-service.js';
import { EmailAccountAccess } from '../email-accounts/account-access.js';
import { jmapClientFactory, jmapCredentialValidator } from '../email-accounts/credential-validator.js';
import { EmailAccountAdminService } from '../email-accounts/email-account-admin-service.js';
import { EmailAccountRepository } from '../email-accounts/email-account-repository.js';
import { EmailAccountService } from '../email-accounts/email-account-service.js';
import { LocalDirectoryStorage } from '../timesheets/local-storage.js';
import { TimesheetRepository } from '../timesheets/timesheet-repository.js';
import { TimesheetService } from '../timesheets/timesheet-service.js';
import { ContactRepository } from '../contacts/contact-repository.js';
import { ContactService } from '../contacts/contact-service.js';
import { EmailRepository } from '../emails/email-repository.js';
import { EmailService } from '../emails/email-service.js';
import { ReadStatePusher } from '../emails/read-state-pusher.js';
import { MailStoreRepository } from '../sync/mail-store-repository.js';
import { SyncRepository } from '../sync/sync-repository.js';
import { SyncService } from '../sync/sync-service.js';

/**
 * The composition root: every service is a plain class whose repositories and collaborators are
 * handed in here. HTTP routes, crm-admin commands and the sync job all receive this same object.
 */
export function buildServices(config: AppConfig, sequelize: Sequelize, logger: Logger) {
  // Per instance (not prom-client's global registry): HTTP middleware and mail sync both record here.
  const metrics = new AppMetrics();
  // One SQL runner and one transaction runner for every repository and service.
  const sql = new Sql(sequelize);
  const transactions = sequelizeTransactions(sequelize);
  const secretBox = new SecretBox(config.secrets.encryptionKey, config.secrets.oldEncryptionKeys);
  const hasher = new PasswordHasher(config.bcryptRounds);

  const auditRepository = new AuditRepository();
  const audit = new AuditService(auditRepository, logger);

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

  const emailAccountRepository = new EmailAccountRepository();
  const emailAccounts = new EmailAccountService({
    accounts: emailAccountRepository,
    transactions,
    secretBox,
    audit,
    validate: jmapCredentialValidator(config.jmapSessionUrl, config.jmapTimeoutMs),
    clientFactory: jmapClientFactory(config.jmapSessionUrl, config.jmapTimeoutMs),
  });
  const emailAccountAdmin = new EmailAccountAdminService(emailAccounts, emailAccountRepository);

  const timesheets = new TimesheetService({
    timesheets: new TimesheetRepository(),
    transactions,
    storage: new LocalDirectoryStorage(config.timesheetDir),
    audit,
    logger,
  });
  const userFiles: UserFileCleanup = timesheets;
  const userAdmin = new UserAdminService({ repository: userRepository, transactions, users, hasher, sessions, emailAccounts, audit, files: userFiles });

  const loginThrottle = new LoginThrottle(new ThrottleRepository(sql));
  const auth = new AuthService({ users, userRepository, transactions, hasher, sessions, emailAccounts, audit, throttle: loginThrottle });

  // Contacts and emails check the caller's own email account through the same EmailAccountAccess.
  const ownEmailAccounts = new EmailAccountAccess();
  const contacts = new ContactService({ contacts: new ContactRepository(sql), accounts: ownEmailAccounts, transactions, audit });
  const emailRepository = new EmailRepository(sql);
  // The sync calls readStatePusher.push(account) at the start of each account's run to retry failed write-backs.
  const readStatePusher = new ReadStatePusher(emailRepository, emailAccounts, logger);
  const emails = new EmailService({ emails: emailRepository, contacts, accounts: ownEmailAccounts, pusher: readStatePusher, logger });

  const mailSync = new SyncService(
    {
      repository: new SyncRepository(sql),
      mailStore: new MailStoreRepository(sql),
      transactions,
      logger,
      clientFor: (account) => emailAccounts.clientFor(account),
      readState: readStatePusher,
      metrics,
    },
    { concurrency: config.syncConcurrency, intervalSeconds: config.syncIntervalSeconds },
  );
  return { audit, hasher, secretBox, users, tokens, sessions, auth, emailAccounts, mailSync, userAdmin, auditQuery, emailAccountAdmin, timesheets, metrics, contacts, emails, readStatePusher };
}

export type Services = ReturnType<typeof buildServices>;
