import type { AuditService } from '../../audit/audit-service.js';
import type { AuditQueryService } from '../../audit/audit-query-service.js';
import type { UserService } from '../../users/user-service.js';
import type { UserAdminService } from '../../users/user-admin-service.js';
import type { UserDirectory } from '../../users/user-directory.js';
import type { UserLifecycleService } from '../../users/user-lifecycle-service.js';
import type { AuthService } from '../../auth/auth-service.js';
import type { SessionService } from '../../auth/session-service.js';
import type { SessionManagement } from '../../auth/session-management.js';
import type { TokenService } from '../../auth/token-service.js';
import type { EmailAccountService } from '../../email-accounts/email-account-service.js';
import type { TimesheetService } from '../../timesheets/timesheet-service.js';
import type { TaskService } from '../../tasks/task-service.js';
import { lazyModule } from './lazy-module.js';
import type { Plumbing } from './plumbing.js';
import type * as auditServiceExports from '../../audit/audit-service.js';
import type * as auditQueryServiceExports from '../../audit/audit-query-service.js';
import type * as userServiceExports from '../../users/user-service.js';
import type { UserEvents } from '../../users/user-events.js';
import type * as userEventsExports from '../../users/user-events.js';
import type * as userAdminServiceExports from '../../users/user-admin-service.js';
import type * as userDirectoryExports from '../../users/user-directory.js';
import type * as userLifecycleServiceExports from '../../users/user-lifecycle-service.js';
import type * as authServiceExports from '../../auth/auth-service.js';
import type * as knownDeviceExports from '../../auth/known-device.js';
import type * as loginThrottleExports from '../../auth/login-throttle.js';
import type * as sessionCacheExports from '../../auth/session-cache.js';
import type * as sessionServiceExports from '../../auth/session-service.js';
import type * as sessionManagementExports from '../../auth/session-management.js';
import type * as tokenServiceExports from '../../auth/token-service.js';
import type * as emailAccountsWiringExports from './email-accounts.js';
import type { ApiTokenService } from '../../api-tokens/api-token-service.js';
import type * as apiTokenServiceExports from '../../api-tokens/api-token-service.js';
import type * as apiTokenRepositoryExports from '../../api-tokens/api-token-repository.js';

// Each service's module loads with the first part that needs it (ADR 0124).
const emailAccountsWiring = lazyModule<typeof emailAccountsWiringExports>(import.meta.url, './email-accounts.js');
const auditServiceModule = lazyModule<typeof auditServiceExports>(import.meta.url, '../../audit/audit-service.js');
const auditQueryServiceModule = lazyModule<typeof auditQueryServiceExports>(import.meta.url, '../../audit/audit-query-service.js');
const userEventsModule = lazyModule<typeof userEventsExports>(import.meta.url, '../../users/user-events.js');
const userServiceModule = lazyModule<typeof userServiceExports>(import.meta.url, '../../users/user-service.js');
const userAdminServiceModule = lazyModule<typeof userAdminServiceExports>(import.meta.url, '../../users/user-admin-service.js');
const userDirectoryModule = lazyModule<typeof userDirectoryExports>(import.meta.url, '../../users/user-directory.js');
const userLifecycleServiceModule = lazyModule<typeof userLifecycleServiceExports>(import.meta.url, '../../users/user-lifecycle-service.js');
const authServiceModule = lazyModule<typeof authServiceExports>(import.meta.url, '../../auth/auth-service.js');
const knownDeviceModule = lazyModule<typeof knownDeviceExports>(import.meta.url, '../../auth/known-device.js');
const loginThrottleModule = lazyModule<typeof loginThrottleExports>(import.meta.url, '../../auth/login-throttle.js');
const sessionCacheModule = lazyModule<typeof sessionCacheExports>(import.meta.url, '../../auth/session-cache.js');
const sessionServiceModule = lazyModule<typeof sessionServiceExports>(import.meta.url, '../../auth/session-service.js');
const sessionManagementModule = lazyModule<typeof sessionManagementExports>(import.meta.url, '../../auth/session-management.js');
const tokenServiceModule = lazyModule<typeof tokenServiceExports>(import.meta.url, '../../auth/token-service.js');
const apiTokenServiceModule = lazyModule<typeof apiTokenServiceExports>(import.meta.url, '../../api-tokens/api-token-service.js');
const apiTokenRepositoryModule = lazyModule<typeof apiTokenRepositoryExports>(import.meta.url, '../../api-tokens/api-token-repository.js');

// The audit log, staff users, their sessions and logging in (src/audit, src/users, src/auth).

interface Audited {
  audit: AuditService;
}

export function audit(p: Plumbing): AuditService {
  return new (auditServiceModule().AuditService)(p.auditRepository, p.logger, p.transactions);
}

export function auditQuery(p: Plumbing): AuditQueryService {
  return new (auditQueryServiceModule().AuditQueryService)(p.auditRepository, p.userRepository);
}

/** user.created / user.disabled into the events outbox (webhooks, issue 48). */
function userEvents(p: Plumbing): UserEvents {
  return p.once('userEvents', () => new (userEventsModule().UserEvents)(p.sql));
}

export function users(p: Plumbing, s: Audited): UserService {
  return new (userServiceModule().UserService)({
    repository: p.userRepository,
    transactions: p.transactions,
    hasher: p.hasher,
    audit: s.audit,
    tempPasswordTtlDays: p.config.tempPasswordTtlDays,
    events: userEvents(p),
  });
}

export function tokens(p: Plumbing): TokenService {
  return new (tokenServiceModule().TokenService)(p.config.secrets.jwtAccessSecret, p.config.secrets.jwtRefreshSecret);
}

export function sessions(p: Plumbing, s: Audited & { tokens: TokenService }): SessionService {
  return new (sessionServiceModule().SessionService)({
    sessions: p.sessionRepository,
    users: p.userRepository,
    transactions: p.transactions,
    tokens: s.tokens,
    audit: s.audit,
    cache: new (sessionCacheModule().SessionCache)((channels, handlers) => p.listener.subscribe(channels, handlers), p.sessionRepository, p.logger),
  });
}

type AccountHolders = Audited & { users: UserService; sessions: SessionService; emailAccounts: EmailAccountService };

export function userAdmin(p: Plumbing, s: AccountHolders & { timesheets: TimesheetService; tasks: TaskService }): UserAdminService {
  // The collaborators are reached when an operation needs them (getters): listing users, what most
  // crm-admin commands do, needs only the repository, not the email-account and timesheet areas.
  return new (userAdminServiceModule().UserAdminService)({
    repository: p.userRepository,
    transactions: p.transactions,
    get users() {
      return s.users;
    },
    hasher: p.hasher,
    get sessions() {
      return s.sessions;
    },
    get emailAccounts() {
      return s.emailAccounts;
    },
    get ownership() {
      return emailAccountsWiring().ownership(p, s);
    },
    get audit() {
      return s.audit;
    },
    get files() {
      return s.timesheets;
    },
    get tasks() {
      return s.tasks;
    },
  });
}

export function auth(p: Plumbing, s: AccountHolders): AuthService {
  return new (authServiceModule().AuthService)({
    users: s.users,
    userRepository: p.userRepository,
    transactions: p.transactions,
    hasher: p.hasher,
    sessions: s.sessions,
    emailAccounts: s.emailAccounts,
    audit: s.audit,
    throttle: new (loginThrottleModule().LoginThrottle)(p.throttles),
    devices: new (knownDeviceModule().KnownDevices)(p.config.secrets.jwtRefreshSecret),
  });
}

// The staff lifecycle (issue 29): the colleague directory, disabling leavers, one's sessions.
export function userDirectory(p: Plumbing): UserDirectory {
  return new (userDirectoryModule().UserDirectory)(p.userRepository);
}

export function userLifecycle(p: Plumbing, s: Audited & { sessions: SessionService }): UserLifecycleService {
  return new (userLifecycleServiceModule().UserLifecycleService)({
    repository: p.userRepository,
    transactions: p.transactions,
    sessions: s.sessions,
    audit: s.audit,
    events: userEvents(p),
  });
}

export function sessionManagement(p: Plumbing, s: Audited): SessionManagement {
  return new (sessionManagementModule().SessionManagement)({ sessions: p.sessionRepository, transactions: p.transactions, audit: s.audit });
}

/**
 * Personal API tokens (issue 48): a cache of checked tokens of its own, on the same LISTEN connection
 * and auth-change channel as the sessions', which also needs the api_tokens triggers (migration 0040).
 */
export function apiTokens(p: Plumbing, s: Audited): ApiTokenService {
  const cacheModule = sessionCacheModule();
  const triggers = [...cacheModule.AUTH_TRIGGERS, 'api_tokens_notify_auth_delete', 'api_tokens_notify_auth_update'];
  return new (apiTokenServiceModule().ApiTokenService)({
    tokens: new (apiTokenRepositoryModule().ApiTokenRepository)(p.sql),
    transactions: p.transactions,
    audit: s.audit,
    cache: new cacheModule.SessionCache((channels, handlers) => p.listener.subscribe(channels, handlers), p.sessionRepository, p.logger, triggers),
  });
}
