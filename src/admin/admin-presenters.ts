import type { AuditLog, User } from '../models/index.js';
import { presentEmailAccount } from '../email-accounts/email-account-presenter.js';
import { presentUser } from '../users/user-presenter.js';
import type { AdminEmailAccount } from '../email-accounts/email-account-admin-service.js';
import type { AdminUserResponse, AuditLogResponse } from './admin-responses.js';

/** The user as an admin sees it: also where onboarding stands (never a hash). */
export function presentAdminUser(user: User): AdminUserResponse {
  return {
    ...presentUser(user),
    emailSetupSkipped: user.emailSetupSkipped,
    temporaryPasswordExpiresAt: user.changedPassword ? null : user.tempPasswordExpiresAt,
    disabledAt: user.disabledAt ?? null,
  };
}

export function presentAuditLog(log: AuditLog): AuditLogResponse {
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

export function presentAdminEmailAccount(account: AdminEmailAccount) {
  return { ...presentEmailAccount(account), userId: account.userId, username: account.user?.username ?? null };
}

export type AdminUserView = AdminUserResponse;
export type AdminEmailAccountView = ReturnType<typeof presentAdminEmailAccount>;
export type AuditLogView = AuditLogResponse;
