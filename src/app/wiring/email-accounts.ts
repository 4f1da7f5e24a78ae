import type { AuditService } from '../../audit/audit-service.js';
import { jmapClientFactory, jmapCredentialValidator } from '../../email-accounts/credential-validator.js';
import { CredentialThrottle } from '../../email-accounts/credential-throttle.js';
import { EmailAccountAdminService } from '../../email-accounts/email-account-admin-service.js';
import { EmailAccountService } from '../../email-accounts/email-account-service.js';
import { EmailAccountSharingService } from '../../email-accounts/email-account-sharing-service.js';
import { OwnershipTransfer } from '../../email-accounts/ownership-transfer.js';
import type { SyncRequests } from '../../email-accounts/sync-requests.js';
import type { SyncService } from '../../sync/sync-service.js';
import type { Plumbing } from './plumbing.js';

// Email accounts (src/email-accounts): attaching, sharing and handing over users' JMAP accounts.

interface Audited {
  audit: AuditService;
}

/** Handing an account over: the sharing service and deleting a user both use the one instance. */
export function ownership(p: Plumbing, s: Audited): OwnershipTransfer {
  return p.once('ownership', () => new OwnershipTransfer(p.memberRepository, p.emailAccountRepository, s.audit));
}

export function emailAccountSharing(p: Plumbing, s: Audited): EmailAccountSharingService {
  return new EmailAccountSharingService({
    members: p.memberRepository,
    access: p.accountAccess,
    ownership: ownership(p, s),
    transactions: p.transactions,
    audit: s.audit,
  });
}

export function emailAccounts(p: Plumbing, s: Audited & { readonly mailSync: SyncService }): EmailAccountService {
  const { jmapSessionUrl, jmapTimeoutMs } = p.config;
  // The sync is reached once a sync is asked for, not when the accounts are built.
  const syncRequests: SyncRequests = { requestSync: (accountId) => s.mailSync.requestSync(accountId) };
  return new EmailAccountService({
    accounts: p.emailAccountRepository,
    members: p.memberRepository,
    access: p.accountAccess,
    transactions: p.transactions,
    secretBox: p.secretBox,
    audit: s.audit,
    validate: jmapCredentialValidator(jmapSessionUrl, jmapTimeoutMs),
    clientFactory: jmapClientFactory(jmapSessionUrl, jmapTimeoutMs),
    throttle: new CredentialThrottle(p.throttles),
    syncRequests,
  });
}

export function emailAccountAdmin(p: Plumbing, s: { emailAccounts: EmailAccountService }): EmailAccountAdminService {
  return new EmailAccountAdminService(s.emailAccounts, p.emailAccountRepository);
}
