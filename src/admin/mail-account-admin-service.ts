import { NotFoundError } from '../errors/app-errors.js';
import { EmailAccount, MailSyncState, User } from '../models/index.js';
import { AuditActions, type RequestMeta } from '../audit/audit-service.js';
import type { MailCredentials } from '../mail-accounts/credential-validator.js';
import type { MailAccountService } from '../mail-accounts/mail-account-service.js';

export type AdminMailAccount = EmailAccount & { syncState?: MailSyncState | null; user?: User };

/**
 * Mail accounts seen by an administrator across all users (crm-admin). The owner-scoped rules
 * (validation, encryption, one primary) stay in MailAccountService; this only finds the owner.
 */
export class MailAccountAdminService {
  constructor(private readonly mailAccounts: MailAccountService) {}

  attach(user: User, credentials: MailCredentials, meta: RequestMeta): Promise<AdminMailAccount> {
    return this.mailAccounts.add(user.id, credentials, meta, { auditAction: AuditActions.mailAccountAttached });
  }

  list(userId?: string): Promise<AdminMailAccount[]> {
    return EmailAccount.findAll({
      where: userId ? { userId } : {},
      include: [
        { model: MailSyncState, as: 'syncState' },
        { model: User, as: 'user', attributes: ['id', 'username'] },
      ],
      order: [[{ model: User, as: 'user' }, 'username', 'ASC'], ['isPrimary', 'DESC'], ['createdAt', 'ASC']],
    }) as Promise<AdminMailAccount[]>;
  }

  async get(accountId: string): Promise<AdminMailAccount> {
    const account = await EmailAccount.findByPk(accountId, { include: [{ model: User, as: 'user', attributes: ['id', 'username'] }] });
    if (!account) throw new NotFoundError('Emailový účet neexistuje');
    return account as AdminMailAccount;
  }

  async remove(accountId: string, meta: RequestMeta): Promise<AdminMailAccount> {
    const account = await this.get(accountId);
    await this.mailAccounts.remove(account.userId, account.id, meta);
    return account;
  }
}
