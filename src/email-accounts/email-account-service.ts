import crypto from 'node:crypto';
import { ConflictError, NotFoundError, ValidationError } from '../errors/app-errors.js';
import type { EmailAccount } from '../models/index.js';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { isUniqueViolation } from '../db/db-errors.js';
import { inTransaction, type Transactions, type Tx } from '../db/transactions.js';
import type { JmapClient } from '../jmap/index.js';
import type { CredentialValidator, JmapClientFactory, MailCredentials } from './credential-validator.js';
import { CredentialGuard, type CredentialSubject, type CredentialThrottle } from './credential-throttle.js';
import type { AccountWithSync, EmailAccountRepository } from './email-account-repository.js';
import { passwordContext } from './password-seal.js';
import { ACCOUNT_NOT_FOUND, type AccountRight, type EmailAccountAccess } from './account-access.js';
import type { EmailAccountMemberRepository, MemberRights } from './member-repository.js';
import type { SyncRequests } from './sync-requests.js';

export type { AccountWithSync } from './email-account-repository.js';
export type { MemberRights } from './member-repository.js';
export { ACCOUNT_NOT_FOUND } from './account-access.js';

/** An account as one of its members sees it: with their role and rights on it. */
export type MemberAccount = AccountWithSync & { access: MemberRights };

export interface EmailAccountChanges {
  email?: string;
  emailPassword?: string;
  isActive?: boolean;
  isPrimary?: boolean;
}

export interface AddOptions {
  auditAction?: string;
  requestSync?: boolean;
}

/** Mail credentials the mail server accepted, with the JMAP account they open. */
export interface VerifiedCredentials {
  email: string;
  emailPassword: string;
  jmapAccountId: string;
}

export interface EmailAccountServiceDeps {
  accounts: EmailAccountRepository;
  members: EmailAccountMemberRepository;
  access: EmailAccountAccess;
  transactions: Transactions;
  secretBox: SecretBox;
  audit: AuditService;
  validate: CredentialValidator;
  clientFactory: JmapClientFactory;
  throttle: CredentialThrottle;
  /** The sync that follows linking an account, new credentials or switching it back on. */
  syncRequests: SyncRequests;
}

const DUPLICATE = 'Tento emailový účet je už pripojený';
const INACTIVE = 'Emailový účet je vypnutý; zapnite ho pred synchronizáciou';
const ADDRESS_NEEDS_PASSWORD = 'Pri zmene adresy zadajte aj heslo k novej schránke (emailPassword)';

function normalizeAddress(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * A user's email accounts: validated against the JMAP server before they are stored, passwords sealed
 * with AES-256-GCM, exactly one primary per owner while any exist. Members see the accounts shared
 * with them beside their own, with their role; only the owner changes or deletes an account
 * (EmailAccountAccess). Used by link-email, the email accounts API, crm-admin and the sync. A new
 * account, new credentials and an account switched back on are synced at once (SyncRequests), whoever
 * made the change.
 */
export class EmailAccountService {
  private readonly credentials: CredentialGuard;

  constructor(private readonly deps: EmailAccountServiceDeps) {
    this.credentials = new CredentialGuard(deps);
  }

  /**
   * Links a mail account and asks for its first sync. `requestSync: false` leaves the sync to the
   * caller (tests and benchmarks that drive the sync themselves) or to the scheduler's next tick.
   */
  async add(userId: string, credentials: MailCredentials, meta: RequestMeta, options: AddOptions = {}): Promise<AccountWithSync> {
    const email = normalizeAddress(credentials.email);
    if (await this.deps.accounts.findByEmail(userId, email)) throw new ConflictError(DUPLICATE);
    // Validation talks to the network: do it before any transaction holds locks.
    const verified = await this.verifyCredentials(userId, { email, emailPassword: credentials.emailPassword }, meta);
    return this.addVerified(userId, verified, meta, options);
  }

  /**
   * Asks the mail server (throttled, refusals audited): the step of `add` that must run before any
   * transaction. `subject` is the CRM user, or whoever acts for a user who does not exist yet.
   */
  async verifyCredentials(subject: string | CredentialSubject, credentials: MailCredentials, meta: RequestMeta): Promise<VerifiedCredentials> {
    const email = normalizeAddress(credentials.email);
    const { accountId } = await this.credentials.check(subject, { email, emailPassword: credentials.emailPassword }, meta);
    return { email, emailPassword: credentials.emailPassword, jmapAccountId: accountId };
  }

  /** Stores credentials the mail server accepted (verifyCredentials), in the caller's transaction when given. */
  async addVerified(userId: string, verified: VerifiedCredentials, meta: RequestMeta, options: AddOptions = {}, outer?: Tx): Promise<AccountWithSync> {
    const { accounts, audit } = this.deps;
    const { email } = verified;
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
          emailPassword: this.sealPassword(id, verified.emailPassword),
          jmapAccountId: verified.jmapAccountId,
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
    let account: AccountWithSync;
    try {
      account = await inTransaction(this.deps.transactions, outer, work);
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(DUPLICATE);
      throw err;
    }
    // The CRM should fill itself now, not at the next scheduler tick. Inside a caller's transaction
    // the row is not visible to the sync yet: ask once that commits. Sequelize runs the hook even when
    // the COMMIT failed, and a failure there would fail a commit that succeeded: it is dropped (the
    // scheduler's next tick syncs a new account anyway).
    if (options.requestSync === false) return account;
    if (outer) outer.afterCommit(() => this.deps.syncRequests.requestSync(account.id).catch(() => undefined));
    else await this.deps.syncRequests.requestSync(account.id);
    return account;
  }

  /** The caller's own accounts (primary first, then oldest first), then those shared with them (oldest first). */
  async list(userId: string): Promise<MemberAccount[]> {
    const memberships = await this.deps.members.membershipsOf(userId);
    const accounts = await this.deps.accounts.findManyWithSync([...memberships.keys()]);
    const rank = (a: MemberAccount) => (a.access.role === 'owner' ? (a.isPrimary ? 0 : 1) : 2);
    return accounts
      .map((account) => Object.assign(account, { access: memberships.get(account.id)! }))
      .sort((a, b) => rank(a) - rank(b) || a.createdAt.getTime() - b.createdAt.getTime());
  }

  /**
   * An account the caller may use for `right` (default: see it), with their rights on it. An account
   * not shared with them is "not found", never "forbidden" (no existence leak); a member without the
   * right gets a 403.
   */
  async get(userId: string, accountId: string, right: AccountRight = 'view', transaction?: Tx): Promise<MemberAccount> {
    const { role, canRead, canSend } = await this.deps.access.requireAccount(userId, accountId, right, transaction);
    const account = await this.deps.accounts.findWithSync(accountId, transaction);
    if (!account) throw new NotFoundError(ACCOUNT_NOT_FOUND);
    return Object.assign(account, { access: { role, canRead, canSend } });
  }

  async update(userId: string, accountId: string, changes: EmailAccountChanges, meta: RequestMeta): Promise<MemberAccount> {
    const { accounts, audit } = this.deps;
    const current = await this.get(userId, accountId, 'manage');
    const email = changes.email?.trim().toLowerCase();
    const addressChange = email !== undefined && email !== current.email;
    // Another mailbox is reached with its own password only: the stored one may open it too (the
    // same password on several mailboxes), and whoever manages the account need not know it (issue 26).
    if (addressChange && changes.emailPassword === undefined) {
      throw new ValidationError(ADDRESS_NEEDS_PASSWORD, [{ field: 'emailPassword', message: ADDRESS_NEEDS_PASSWORD }]);
    }
    const credentialsChange = addressChange || changes.emailPassword !== undefined;
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
        const account = await this.get(userId, accountId, 'manage', tx);
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
          {
            action: AuditActions.emailAccountUpdated,
            userId,
            details: { emailAccountId: account.id, credentialsChanged: credentialsChange, isActive: changes.isActive, isPrimary: changes.isPrimary },
          },
          meta,
          tx,
        );
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(DUPLICATE);
      throw err;
    }
    const account = await this.get(userId, accountId);
    // New credentials (or the same ones given again) and an account switched back on: sync at once.
    if (account.isActive && (changes.email !== undefined || changes.emailPassword !== undefined || changes.isActive === true)) {
      await this.deps.syncRequests.requestSync(account.id);
    }
    return account;
  }

  /**
   * "Sync now" by a member with the sync right (owner and editor); however many ask, the account is
   * synced once (one lease per account). Answers the account with the caller's rights.
   */
  async syncNow(userId: string, accountId: string): Promise<MemberAccount> {
    const account = await this.get(userId, accountId, 'sync');
    if (!account.isActive) throw new ConflictError(INACTIVE);
    await this.deps.syncRequests.requestSync(account.id);
    return this.get(userId, accountId);
  }

  /**
   * Deletes the account with its shares, contacts and emails (owner only); the oldest remaining
   * account of the owner becomes primary.
   */
  async remove(userId: string, accountId: string, meta: RequestMeta): Promise<void> {
    const { accounts, members, audit } = this.deps;
    await this.deps.transactions.run(async (tx) => {
      const account = await this.get(userId, accountId, 'manage', tx);
      const shares = (await members.list(account.id, { page: 1, limit: 1 }, tx)).total - 1;
      await accounts.destroy(account, tx);
      if (account.isPrimary) await accounts.promoteOldest(userId, tx);
      await audit.record({ action: AuditActions.emailAccountRemoved, userId, details: { emailAccountId: account.id, email: account.email, sharedWith: shares } }, meta, tx);
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
