import type { AuditLog, User } from '../models/index.js';
import { presentMailAccount } from '../mail-accounts/mail-account-presenter.js';
import { presentUser } from '../users/user-presenter.js';
import type { AdminMailAccount } from './mail-account-admin-service.js';

/** The user as an admin sees it: also where onboarding stands (never a hash). */
export function presentAdminUser(user: User) {
  return {
    ...presentUser(user),
    emailSetupSkipped: user.emailSetupSkipped,
    temporaryPasswordExpiresAt: user.changedPassword ? null : user.tempPasswordExpiresAt,
  };
}

export function presentAuditLog(log: AuditLog) {
  return {
    // bigserial arrives as a string from pg; kept a string so it never loses precision.
    id: String(log.id),
    action: log.action,
    userId: log.userId,
    username: log.username,
    actor: log.actor,
    success: log.success,
    ip: log.ip,
    userAgent: log.userAgent,
    details: log.details,
    createdAt: log.createdAt,
  };
}

export function presentAdminMailAccount(account: AdminMailAccount) {
  return { ...presentMailAccount(account), userId: account.userId, username: account.user?.username ?? null };
}

export type AdminUserView = ReturnType<typeof presentAdminUser>;
export type AdminMailAccountView = ReturnType<typeof presentAdminMailAccount>;
export type AuditLogView = ReturnType<typeof presentAuditLog>;
