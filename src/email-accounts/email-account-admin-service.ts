import { NotFoundError } from '../errors/app-errors.js';
import type { User } from '../models/index.js';
import { AuditActions, type RequestMeta } from '../audit/audit-service.js';
import type { MailCredentials } from './credential-validator.js';
import type { AdminEmailAccount, EmailAccountRepository } from './email-account-repository.js';
import { ACCOUNT_NOT_FOUND, type EmailAccountService } from './email-account-service.js';

export type { AdminEmailAccount } from './email-account-repository.js';

/**
 * Email accounts seen by an administrator across all users (crm-admin). The owner-scoped rules
 * (validation, encryption, one primary) stay in EmailAccountService; this only finds the owner.
 */
export class EmailAccountAdminService {
  constructor(
    private readonly emailAccounts: EmailAccountService,
    private readonly accounts: EmailAccountRepository,
  ) {}

  attach(user: User, credentials: MailCredentials, meta: RequestMeta): Promise<AdminEmailAccount> {
    return this.emailAccounts.add(user.id, credentials, meta, { auditAction: AuditActions.emailAccountAttached });
  }

  list(userId?: string): Promise<AdminEmailAccount[]> {
    return this.accounts.listWithOwners(userId);
  }

  async get(accountId: string): Promise<AdminEmailAccount> {
    const account = await this.accounts.findWithOwner(accountId);
    if (!account) throw new NotFoundError(ACCOUNT_NOT_FOUND);
    return account;
  }

  async remove(accountId: string, meta: RequestMeta): Promise<AdminEmailAccount> {
    const account = await this.get(accountId);
    await this.emailAccounts.remove(account.userId, account.id, meta);
    return account;
  }
}
