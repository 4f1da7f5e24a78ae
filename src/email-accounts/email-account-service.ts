import crypto from 'node:crypto';
import { ConflictError, NotFoundError } from '../errors/app-errors.js';
import type { EmailAccount } from '../models/index.js';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { isUniqueViolation } from '../db/db-errors.js';
import type { Transactions, Tx } from '../db/transactions.js';
import type { JmapClient } from '../jmap/index.js';
import type { CredentialValidator, JmapClientFactory, MailCredentials } from './credential-validator.js';
import { CredentialGuard, type CredentialThrottle } from './credential-throttle.js';
import type { AccountWithSync, EmailAccountRepository } from './email-account-repository.js';
import { passwordContext } from './password-seal.js';

export type { AccountWithSync } from './email-account-repository.js';

export interface EmailAccountChanges {
  email?: string;
  emailPassword?: string;
  isActive?: boolean;
  isPrimary?: boolean;
}

export interface EmailAccountServiceDeps {
  accounts: EmailAccountRepository;
  transactions: Transactions;
  secretBox: SecretBox;
  audit: AuditService;
  validate: CredentialValidator;
  clientFactory: JmapClientFactory;
  throttle: CredentialThrottle;
}

const DUPLICATE = 'Tento emailový účet je už pripojený';
export const ACCOUNT_NOT_FOUND = 'Emailový účet neexistuje';

/**
 * A user's email accounts: validated against the JMAP server before they are stored, passwords sealed
 * with AES-256-GCM, exactly one primary per user while any exist. Used by link-email, the mail
 * accounts API, crm-admin and the sync.
 */
export class EmailAccountService {
  private readonly credentials: CredentialGuard;

  constructor(private readonly deps: EmailAccountServiceDeps) {
    this.credentials = new CredentialGuard(deps);
  }

  async add(
    userId: string,
    credentials: MailCredentials,
    meta: RequestMeta,
    options: { auditAction?: string } = {},
    outer?: Tx,
  ): Promise<AccountWithSync> {
    const { accounts, audit } = this.deps;
    const email = credentials.email.trim().toLowerCase();
    if (await accounts.findByEmail(userId, email, outer)) throw new ConflictError(DUPLICATE);
    // Validation talks to the network: do it before any transaction holds locks.
    const { accountId } = await this.credentials.check(userId, { email, emailPassword: credentials.emailPassword }, meta);
    const work = async (tx: Tx) => {
      const user = await accounts.lockOwner(userId, tx);
      if (!user) throw new NotFoundError('Používateľ neexistuje');
      const existing = await accounts.countOfUser(userId, tx);
      const id = crypto.randomUUID();
      const account = await accounts.create(
        {
          id,
          userId,
          email,
          emailPassword: this.sealPassword(id, credentials.emailPassword),
          jmapAccountId: accountId,
          // The first account of a user is the primary one.
          isPrimary: existing === 0,
          isActive: true,
        },
        tx,
      );
      await audit.record(
        { action: options.auditAction ?? AuditActions.emailAccountAdded, userId, username: user.username, details: { email, emailAccountId: account.id } },
        meta,
        tx,
      );
      return account;
    };
    try {
      return outer ? await work(outer) : await this.deps.transactions.run(work);
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(DUPLICATE);
      throw err;
    }
  }

  list(userId: string): Promise<AccountWithSync[]> {
    return this.deps.accounts.listOfUser(userId);
  }

  /** Owner-scoped lookup: another user's account id is "not found", never "forbidden" (no existence leak). */
  async get(userId: string, accountId: string, transaction?: Tx): Promise<AccountWithSync> {
    const account = await this.deps.accounts.findOwned(userId, accountId, transaction);
    if (!account) throw new NotFoundError(ACCOUNT_NOT_FOUND);
    return account;
  }

  async update(userId: string, accountId: string, changes: EmailAccountChanges, meta: RequestMeta): Promise<AccountWithSync> {
    const { accounts, audit } = this.deps;
    const current = await this.get(userId, accountId);
    const email = changes.email?.trim().toLowerCase();
    const credentialsChange = (email !== undefined && email !== current.email) || changes.emailPassword !== undefined;
    let jmapAccountId: string | undefined;
    if (credentialsChange) {
      const password = changes.emailPassword ?? this.credentialsOf(current).password;
      ({ accountId: jmapAccountId } = await this.credentials.check(userId, { email: email ?? current.email, emailPassword: password }, meta));
    }
    try {
      await this.deps.transactions.run(async (tx) => {
        // One writer per user at a time: two accounts made primary at once would otherwise deadlock
        // on each other's rows (clear the old primary / set the new one).
        await accounts.lockOwner(userId, tx);
        const account = await this.get(userId, accountId, tx);
        if (credentialsChange) {
          if (email) account.email = email;
          if (changes.emailPassword !== undefined) account.emailPassword = this.sealPassword(account.id, changes.emailPassword);
          // A different mailbox behind the account: start its sync from scratch.
          if (jmapAccountId !== account.jmapAccountId) await accounts.resetSyncCursor(account.id, tx);
          account.jmapAccountId = jmapAccountId!;
          // New credentials lift an auth_failed stop: the sync may try again at once.
          await accounts.restartSync(account.id, tx);
        }
        if (changes.isActive !== undefined) account.isActive = changes.isActive;
        if (changes.isPrimary === true && !account.isPrimary) {
          await accounts.clearPrimary(userId, tx);
          account.isPrimary = true;
        }
        await accounts.save(account, tx);
        await audit.record(
          { action: AuditActions.emailAccountUpdated, userId, details: { emailAccountId: account.id, credentialsChanged: credentialsChange, isActive: changes.isActive, isPrimary: changes.isPrimary } },
          meta,
          tx,
        );
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(DUPLICATE);
      throw err;
    }
    return this.get(userId, accountId);
  }

  /** Deletes the account with its contacts and emails; the oldest remaining account becomes primary. */
  async remove(userId: string, accountId: string, meta: RequestMeta): Promise<void> {
    const { accounts, audit } = this.deps;
    await this.deps.transactions.run(async (tx) => {
      const account = await this.get(userId, accountId, tx);
      await accounts.destroy(account, tx);
      if (account.isPrimary) await accounts.promoteOldest(userId, tx);
      await audit.record(
        { action: AuditActions.emailAccountRemoved, userId, details: { emailAccountId: account.id, email: account.email } },
        meta,
        tx,
      );
    });
  }

  async hasActiveAccount(userId: string): Promise<boolean> {
    return (await this.deps.accounts.countActiveOfUser(userId)) > 0;
  }

  /** Clear credentials for the JMAP client; only the sync and read write-back call this. Throws for a value sealed for another row. */
  credentialsOf(account: Pick<EmailAccount, 'id' | 'email' | 'emailPassword'>): { username: string; password: string } {
    return { username: account.email, password: this.deps.secretBox.decrypt(account.emailPassword, passwordContext(account.id)) };
  }

  /** The stored form of a mail password: sealed and bound to its account row. */
  sealPassword(accountId: string, plain: string): string {
    return this.deps.secretBox.encrypt(plain, passwordContext(accountId));
  }

  /** A JMAP client signed in as this account. */
  clientFor(account: EmailAccount): JmapClient {
    return this.deps.clientFactory(this.credentialsOf(account));
  }
}
