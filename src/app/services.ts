import type { Sequelize } from 'sequelize';
import type { AppConfig } from '../config/config.js';
import type { Logger } from '../logging/logger.js';
import { AuditService } from '../audit/audit-service.js';
import { SecretBox } from '../crypto/secret-box.js';
import { PasswordHasher } from '../users/password-hasher.js';
import { UserService } from '../users/user-service.js';
import type { SyncRunner } from '../sync/sync-scheduler.js';
import { SessionService } from '../auth/session-service.js';
import { TokenService } from '../auth/token-service.js';

/**
 * The composition root: every service is a plain class whose dependencies are handed in here.
 * HTTP routes, crm-admin commands and the sync job all receive this same object.
 */
export function buildServices(config: AppConfig, sequelize: Sequelize, logger: Logger) {
  const audit = new AuditService(logger);
  const hasher = new PasswordHasher(config.bcryptRounds);
  const secretBox = new SecretBox(config.secrets.encryptionKey, config.secrets.oldEncryptionKeys);
  const users = new UserService(sequelize, hasher, audit, config.tempPasswordTtlDays);
  const tokens = new TokenService(config.secrets.jwtAccessSecret, config.secrets.jwtRefreshSecret);
  const sessions = new SessionService(sequelize, tokens, audit);
  // Filled by the mail sync; until then the scheduler has nothing to do.
  const mailSync: SyncRunner = { runDueAccounts: async () => undefined, shutdown: async () => undefined };
  return { audit, hasher, secretBox, users, tokens, sessions, mailSync };
}

export type Services = ReturnType<typeof buildServices>;
