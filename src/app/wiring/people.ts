import { AuditService } from '../../audit/audit-service.js';
import { AuditQueryService } from '../../audit/audit-query-service.js';
import { UserService } from '../../users/user-service.js';
import { UserAdminService } from '../../users/user-admin-service.js';
import { UserDirectory } from '../../users/user-directory.js';
import { UserLifecycleService } from '../../users/user-lifecycle-service.js';
import { AuthService } from '../../auth/auth-service.js';
import { KnownDevices } from '../../auth/known-device.js';
import { LoginThrottle } from '../../auth/login-throttle.js';
import { SessionCache } from '../../auth/session-cache.js';
import { SessionService } from '../../auth/session-service.js';
import { SessionManagement } from '../../auth/session-management.js';
import { TokenService } from '../../auth/token-service.js';
import type { EmailAccountService } from '../../email-accounts/email-account-service.js';
import type { TimesheetService } from '../../timesheets/timesheet-service.js';
import { ownership } from './email-accounts.js';
import type { Plumbing } from './plumbing.js';

// The audit log, staff users, their sessions and logging in (src/audit, src/users, src/auth).

interface Audited {
  audit: AuditService;
}

export function audit(p: Plumbing): AuditService {
  return new AuditService(p.auditRepository, p.logger, p.transactions);
}

export function auditQuery(p: Plumbing): AuditQueryService {
  return new AuditQueryService(p.auditRepository, p.userRepository);
}

export function users(p: Plumbing, s: Audited): UserService {
  return new UserService({
    repository: p.userRepository,
    transactions: p.transactions,
    hasher: p.hasher,
    audit: s.audit,
    tempPasswordTtlDays: p.config.tempPasswordTtlDays,
  });
}

export function tokens(p: Plumbing): TokenService {
  return new TokenService(p.config.secrets.jwtAccessSecret, p.config.secrets.jwtRefreshSecret);
}

export function sessions(p: Plumbing, s: Audited & { tokens: TokenService }): SessionService {
  return new SessionService({
    sessions: p.sessionRepository,
    users: p.userRepository,
    transactions: p.transactions,
    tokens: s.tokens,
    audit: s.audit,
    cache: new SessionCache((channels, handlers) => p.listener.subscribe(channels, handlers), p.sessionRepository, p.logger),
  });
}

type AccountHolders = Audited & { users: UserService; sessions: SessionService; emailAccounts: EmailAccountService };

export function userAdmin(p: Plumbing, s: AccountHolders & { timesheets: TimesheetService }): UserAdminService {
  return new UserAdminService({
    repository: p.userRepository,
    transactions: p.transactions,
    users: s.users,
    hasher: p.hasher,
    sessions: s.sessions,
    emailAccounts: s.emailAccounts,
    ownership: ownership(p, s),
    audit: s.audit,
    files: s.timesheets,
  });
}

export function auth(p: Plumbing, s: AccountHolders): AuthService {
  return new AuthService({
    users: s.users,
    userRepository: p.userRepository,
    transactions: p.transactions,
    hasher: p.hasher,
    sessions: s.sessions,
    emailAccounts: s.emailAccounts,
    audit: s.audit,
    throttle: new LoginThrottle(p.throttles),
    devices: new KnownDevices(p.config.secrets.jwtRefreshSecret),
  });
}

// The staff lifecycle (issue 29): the colleague directory, disabling leavers, one's sessions.
export function userDirectory(p: Plumbing): UserDirectory {
  return new UserDirectory(p.userRepository);
}

export function userLifecycle(p: Plumbing, s: Audited & { sessions: SessionService }): UserLifecycleService {
  return new UserLifecycleService({ repository: p.userRepository, transactions: p.transactions, sessions: s.sessions, audit: s.audit });
}

export function sessionManagement(p: Plumbing, s: Audited): SessionManagement {
  return new SessionManagement({ sessions: p.sessionRepository, transactions: p.transactions, audit: s.audit });
}
