import { NotFoundError } from '../errors/app-errors.js';
import { EmailAccount, MailSyncState, User } from '../models/index.js';
import { AuditActions, type RequestMeta } from '../audit/audit-service.js';
import type { MailCredentials } from './credential-validator.js';
import type { EmailAccountService } from './email-account-service.js';

export type AdminEmailAccount = EmailAccount & { syncState?: MailSyncState | null; user?: User };

/**
 * Email accounts seen by an administrator across all users (crm-admin). The owner-scoped rules
 * (validation, encryption, one primary) stay in EmailAccountService; this only finds the owner.
 */
export class EmailAccountAdminService {
  constructor(private readonly emailAccounts: EmailAccountService) {}

  attach(user: User, credentials: MailCredentials, meta: RequestMeta): Promise<AdminEmailAccount> {
    return this.emailAccounts.add(user.id, credentials, meta, { auditAction: AuditActions.emailAccountAttached });
  }

  list(userId?: string): Promise<AdminEmailAccount[]> {
    return EmailAccount.findAll({
      where: userId ? { userId } : {},
      include: [
        { model: MailSyncState, as: 'syncState' },
        { model: User, as: 'user', attributes: ['id', 'username'] },
      ],
      order: [[{ model: User, as: 'user' }, 'username', 'ASC'], ['isPrimary', 'DESC'], ['createdAt', 'ASC']],
    }) as Promise<AdminEmailAccount[]>;
  }

  async get(accountId: string): Promise<AdminEmailAccount> {
    const account = await EmailAccount.findByPk(accountId, { include: [{ model: User, as: 'user', attributes: ['id', 'username'] }] });
    if (!account) throw new NotFoundError('Emailový účet neexistuje');
    return account as AdminEmailAccount;
  }

  async remove(accountId: string, meta: RequestMeta): Promise<AdminEmailAccount> {
    const account = await this.get(accountId);
    await this.emailAccounts.remove(account.userId, account.id, meta);
    return account;
  }
}
