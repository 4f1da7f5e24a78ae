import { UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import { ConflictError, NotFoundError } from '../errors/app-errors.js';
import { EmailAccount, MailSyncState, User } from '../models/index.js';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { JmapClient } from '../jmap/client.js';
import type { CredentialValidator, JmapClientFactory, MailCredentials } from './credential-validator.js';

export interface EmailAccountChanges {
  email?: string;
  emailPassword?: string;
  isActive?: boolean;
  isPrimary?: boolean;
}

type AccountWithSync = EmailAccount & { syncState?: MailSyncState | null };

const DUPLICATE = 'Tento emailový účet je už pripojený';

/**
 * A user's email accounts: validated against the JMAP server before they are stored, passwords sealed
 * with AES-256-GCM, exactly one primary per user while any exist. Used by link-email, the mail
 * accounts API, crm-admin and the sync.
 */
export class EmailAccountService {
  constructor(
    private readonly sequelize: Sequelize,
    private readonly secretBox: SecretBox,
    private readonly audit: AuditService,
    private readonly validate: CredentialValidator,
    private readonly clientFactory: JmapClientFactory,
  ) {}

  async add(
    userId: string,
    credentials: MailCredentials,
    meta: RequestMeta,
    options: { auditAction?: string; transaction?: Transaction } = {},
  ): Promise<AccountWithSync> {
    const email = credentials.email.trim().toLowerCase();
    if (await this.findByEmail(userId, email, options.transaction)) throw new ConflictError(DUPLICATE);
    // Validation talks to the network: do it before any transaction holds locks.
    const { accountId } = await this.validate({ email, emailPassword: credentials.emailPassword });
    const work = async (transaction: Transaction) => {
      const user = await User.findByPk(userId, { transaction, lock: transaction.LOCK.UPDATE });
      if (!user) throw new NotFoundError('Používateľ neexistuje');
      const existing = await EmailAccount.count({ where: { userId }, transaction });
      const account = await EmailAccount.create(
        {
          userId,
          email,
          emailPassword: this.secretBox.encrypt(credentials.emailPassword),
          jmapAccountId: accountId,
          isPrimary: existing === 0,
          isActive: true,
        },
        { transaction },
      );
      const syncState = await MailSyncState.create({ emailAccountId: account.id, status: 'idle', emailState: null, lastAttemptAt: null, lastSuccessAt: null, lastError: null, nextAttemptAt: new Date(), requestedAt: new Date(), lockedBy: null, lockedUntil: null }, { transaction });
      await this.audit.record(
        { action: options.auditAction ?? AuditActions.emailAccountAdded, userId, username: user.username, details: { email, emailAccountId: account.id } },
        meta,
        transaction,
      );
      return Object.assign(account, { syncState });
    };
    try {
      return options.transaction ? await work(options.transaction) : await this.sequelize.transaction(work);
    } catch (err) {
      if (err instanceof UniqueConstraintError) throw new ConflictError(DUPLICATE);
      throw err;
    }
  }

  list(userId: string): Promise<AccountWithSync[]> {
    return EmailAccount.findAll({
      where: { userId },
      include: [{ model: MailSyncState, as: 'syncState' }],
      order: [['isPrimary', 'DESC'], ['createdAt', 'ASC']],
    });
  }

  /** Owner-scoped lookup: another user's account id is "not found", never "forbidden" (no existence leak). */
  async get(userId: string, accountId: string, transaction?: Transaction): Promise<AccountWithSync> {
    const account = await EmailAccount.findOne({ where: { id: accountId, userId }, include: [{ model: MailSyncState, as: 'syncState' }], transaction });
    if (!account) throw new NotFoundError('Emailový účet neexistuje');
    return account;
  }

  async update(userId: string, accountId: string, changes: EmailAccountChanges, meta: RequestMeta): Promise<AccountWithSync> {
    const current = await this.get(userId, accountId);
    const email = changes.email?.trim().toLowerCase();
    const credentialsChange = (email !== undefined && email !== current.email) || changes.emailPassword !== undefined;
    let jmapAccountId: string | undefined;
    if (credentialsChange) {
      const password = changes.emailPassword ?? this.secretBox.decrypt(current.emailPassword);
      ({ accountId: jmapAccountId } = await this.validate({ email: email ?? current.email, emailPassword: password }));
    }
    try {
      await this.sequelize.transaction(async (transaction) => {
        // One writer per user at a time: two accounts made primary at once would otherwise deadlock
        // on each other's rows (clear the old primary / set the new one).
        await User.findByPk(userId, { transaction, lock: transaction.LOCK.UPDATE });
        const account = await this.get(userId, accountId, transaction);
        if (credentialsChange) {
          if (email) account.email = email;
          if (changes.emailPassword !== undefined) account.emailPassword = this.secretBox.encrypt(changes.emailPassword);
          // A different mailbox behind the account: start its sync from scratch.
          if (jmapAccountId !== account.jmapAccountId) await MailSyncState.update({ emailState: null }, { where: { emailAccountId: account.id }, transaction });
          account.jmapAccountId = jmapAccountId!;
          // New credentials lift an auth_failed stop: the sync may try again at once.
          await MailSyncState.update(
            { status: 'idle', consecutiveFailures: 0, nextAttemptAt: new Date(), lastError: null },
            { where: { emailAccountId: account.id }, transaction },
          );
        }
        if (changes.isActive !== undefined) account.isActive = changes.isActive;
        if (changes.isPrimary === true && !account.isPrimary) {
          await EmailAccount.update({ isPrimary: false }, { where: { userId, isPrimary: true }, transaction });
          account.isPrimary = true;
        }
        await account.save({ transaction });
        await this.audit.record(
          { action: AuditActions.emailAccountUpdated, userId, details: { emailAccountId: account.id, credentialsChanged: credentialsChange, isActive: changes.isActive, isPrimary: changes.isPrimary } },
          meta,
          transaction,
        );
      });
    } catch (err) {
      if (err instanceof UniqueConstraintError) throw new ConflictError(DUPLICATE);
      throw err;
    }
    return this.get(userId, accountId);
  }

  /** Deletes the account with its contacts and emails; the oldest remaining account becomes primary. */
  async remove(userId: string, accountId: string, meta: RequestMeta): Promise<void> {
    await this.sequelize.transaction(async (transaction) => {
      const account = await this.get(userId, accountId, transaction);
      await account.destroy({ transaction });
      if (account.isPrimary) {
        const next = await EmailAccount.findOne({ where: { userId }, order: [['createdAt', 'ASC']], transaction });
        if (next) await next.update({ isPrimary: true }, { transaction });
      }
      await this.audit.record(
        { action: AuditActions.emailAccountRemoved, userId, details: { emailAccountId: account.id, email: account.email } },
        meta,
        transaction,
      );
    });
  }

  hasActiveAccount(userId: string): Promise<boolean> {
    return EmailAccount.count({ where: { userId, isActive: true } }).then((n) => n > 0);
  }

  /** Clear credentials for the JMAP client; only the sync and read write-back call this. */
  credentialsOf(account: EmailAccount): { username: string; password: string } {
    return { username: account.email, password: this.secretBox.decrypt(account.emailPassword) };
  }

  /** A JMAP client signed in as this account. */
  clientFor(account: EmailAccount): JmapClient {
    return this.clientFactory(this.credentialsOf(account));
  }

  private findByEmail(userId: string, email: string, transaction?: Transaction): Promise<EmailAccount | null> {
    // Addresses are stored lower-cased, so equality is case-insensitive.
    return EmailAccount.findOne({ where: { userId, email }, transaction });
  }
}
