import { ConflictError, NotFoundError, ValidationError } from '../errors/app-errors.js';
import type { EmailAccount, MailSyncState, Role, User } from '../models/index.js';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { EmailAccountService } from '../email-accounts/email-account-service.js';
import type { OwnedSharedAccount, OwnershipTransfer } from '../email-accounts/ownership-transfer.js';
import { actingSubject } from '../email-accounts/credential-subject.js';
import { isForeignKeyViolation } from '../db/db-errors.js';
import type { Transactions, Tx } from '../db/transactions.js';
import type { PageRequest, Page } from '../shared/pagination.js';
import type { PasswordHasher } from './password-hasher.js';
import { generateTemporaryPassword } from './temp-password.js';
import type { UserRepository } from './user-repository.js';
import type { CreatedUser, NewUser, UserService } from './user-service.js';

/** What user deletion needs from the timesheet store: rows in the caller's transaction, files after its commit. */
export interface UserFileCleanup {
  removeAllForUser(userId: string, tx?: Tx): Promise<{ count: number; bytes: number }>;
}

/** What a password reset needs from the login sessions (SessionService): every session of the user ends. */
export interface UserSessionRevoker {
  revokeAllForUser(userId: string, reason: string, options: { except?: string }, tx?: Tx): Promise<number>;
}

/** What creating a user with a mailbox needs from the email accounts: check it first, attach it inside the creation's transaction. */
export type UserEmailAccounts = Pick<EmailAccountService, 'verifyCredentials' | 'addVerified'>;

/** What user deletion with a hand-over needs from the tasks (src/tasks): the leaver's open tasks go to the successor. */
export interface UserTaskHandOver {
  handOver(fromUserId: string, toUserId: string, tx: Tx): Promise<number>;
}

/** What user deletion needs from email-account sharing: the deleted user's shared accounts and shares. */
export type UserEmailAccountOwnership = Pick<OwnershipTransfer, 'sharedAccountsOwnedBy' | 'handOver' | 'recordSharesEnding'>;

/**
 * What happens to the email accounts a deleted user owns and shares with others: never decided
 * silently. Either they go to a new owner, or they are deleted with their data by explicit choice.
 */
export interface SharedAccountsChoice {
  newOwnerId?: string;
  deleteSharedAccounts?: boolean;
}

export interface DeletedUser {
  user: User;
  /** Shared accounts now owned by the chosen new owner. */
  handedOver: OwnedSharedAccount[];
  /** Shared accounts deleted with the user (deleteSharedAccounts). */
  deletedSharedAccounts: OwnedSharedAccount[];
  /** The user's shares of other people's accounts, which ended. */
  sharesRemoved: number;
}

export interface UserListQuery extends PageRequest {
  role?: Role;
  /** Matched case-insensitively against username, first and last name. */
  search?: string;
}

export interface UserChanges {
  role?: Role;
  firstName?: string | null;
  lastName?: string | null;
}

export interface CreatedUserWithMail extends CreatedUser {
  emailAccount?: EmailAccount & { syncState?: MailSyncState | null };
}

const LAST_ADMIN = 'Posledného administrátora nemožno odobrať ani odstrániť';
const OWNS_SHARED = 'Používateľ vlastní emailové účty zdieľané s ďalšími používateľmi: zvoľte nového vlastníka, alebo ich výslovne odstráňte aj s údajmi';
const NOT_FOUND = 'Používateľ neexistuje';
const USERNAME_TAKEN = 'Používateľské meno už existuje';

/**
 * What an administrator does to other users, for the admin API and crm-admin alike: list, create
 * (optionally with a email account), change names and role, issue a new temporary password, delete.
 * There is always at least one admin left, or nobody could manage the system any more.
 */
export class UserAdminService {
  constructor(
    private readonly deps: {
      repository: UserRepository;
      transactions: Transactions;
      users: UserService;
      hasher: PasswordHasher;
      sessions: UserSessionRevoker;
      emailAccounts: UserEmailAccounts;
      ownership: UserEmailAccountOwnership;
      audit: AuditService;
      files: UserFileCleanup;
      tasks: UserTaskHandOver;
    },
  ) {}

  list(query: UserListQuery): Promise<Page<User>> {
    return this.deps.repository.list({ role: query.role, search: query.search }, { page: query.page, limit: query.limit });
  }

  get(id: string): Promise<User> {
    return this.deps.users.getById(id);
  }

  async getByUsername(username: string): Promise<User> {
    const user = await this.deps.users.findByUsername(username);
    if (!user) throw new NotFoundError(NOT_FOUND);
    return user;
  }

  /**
   * One transaction for the user and the email account: wrong mail credentials leave no user behind.
   * The mail server is asked before that transaction opens (no network call while it holds locks),
   * on behalf of the acting administrator: the user does not exist yet, so the throttle counts the
   * administrator's guesses and a refusal is recorded as theirs (details.forUsername names the user).
   */
  async create(input: NewUser & { email?: string; emailPassword?: string }, meta: RequestMeta): Promise<CreatedUserWithMail> {
    const { email, emailPassword, ...user } = input;
    if (email === undefined || emailPassword === undefined) return this.deps.users.create(user, meta);
    // A taken name is refused before the mail server is asked (and a guess is counted).
    if (await this.deps.users.findByUsername(user.username)) throw new ConflictError(USERNAME_TAKEN);
    const verified = await this.deps.emailAccounts.verifyCredentials(actingSubject(meta, user.username), { email, emailPassword }, meta);
    return this.deps.transactions.run(async (tx) => {
      const created = await this.deps.users.create(user, meta, tx);
      const emailAccount = await this.deps.emailAccounts.addVerified(created.user.id, verified, meta, { auditAction: AuditActions.emailAccountAttached }, tx);
      return { ...created, emailAccount };
    });
  }

  async update(id: string, changes: UserChanges, meta: RequestMeta): Promise<User> {
    return this.deps.transactions.run(async (tx) => {
      if (changes.role === 'member') await this.deps.repository.lockAdmins(tx);
      const user = await this.lockUser(id, tx);
      const names: Record<string, string | null> = {};
      if (changes.firstName !== undefined && changes.firstName !== user.firstName) names.firstName = changes.firstName;
      if (changes.lastName !== undefined && changes.lastName !== user.lastName) names.lastName = changes.lastName;
      const oldRole = user.role;
      const roleChange = changes.role !== undefined && changes.role !== oldRole;
      if (roleChange && oldRole === 'admin') await this.assertAnotherAdmin(user.id, tx);
      user.set({ ...names, ...(roleChange ? { role: changes.role } : {}) });
      await this.deps.repository.save(user, tx);
      if (Object.keys(names).length > 0) {
        await this.deps.audit.record({ action: AuditActions.userUpdated, userId: user.id, username: user.username, details: { fields: Object.keys(names) } }, meta, tx);
      }
      if (roleChange) {
        await this.deps.audit.record({ action: AuditActions.roleChanged, userId: user.id, username: user.username, details: { from: oldRole, to: user.role } }, meta, tx);
      }
      return user;
    });
  }

  /**
   * Back to onboarding with a fresh temporary password (shown once): the old password stops working
   * and every session ends at once, so whoever had the account is out.
   */
  async resetTemporaryPassword(id: string, meta: RequestMeta): Promise<CreatedUser> {
    const temporaryPassword = generateTemporaryPassword();
    const tempPassword = await this.deps.hasher.hash(temporaryPassword);
    const user = await this.deps.transactions.run(async (tx) => {
      const user = await this.lockUser(id, tx);
      user.set({ password: null, changedPassword: false, tempPassword, tempPasswordExpiresAt: this.deps.users.tempPasswordExpiry() });
      await this.deps.repository.save(user, tx);
      const revokedSessions = await this.deps.sessions.revokeAllForUser(user.id, 'admin_password_reset', {}, tx);
      await this.deps.audit.record({ action: AuditActions.tempPasswordReset, userId: user.id, username: user.username, details: { revokedSessions } }, meta, tx);
      return user;
    });
    return { user, temporaryPassword };
  }

  /**
   * The database removes the user's rows (cascade), their shares of other people's accounts included.
   * Email accounts the user owns and shares with others are handed to `newOwnerId` or, only when
   * `deleteSharedAccounts` says so, deleted; with neither, a 409 lists them. With `newOwnerId` the
   * user's open tasks go to the new owner too; without it, the database hands the tasks others gave
   * them back to those others and deletes the rest (migration 0055). Timesheet rows go in the
   * same transaction and their files only after it commits, so a refused or failed deletion leaves
   * every file in place.
   */
  async delete(id: string, meta: RequestMeta, choice: SharedAccountsChoice = {}): Promise<DeletedUser> {
    const { ownership } = this.deps;
    return this.deps.transactions.run(async (tx) => {
      await this.deps.repository.lockAdmins(tx);
      const user = await this.lockUser(id, tx);
      if (user.role === 'admin') await this.assertAnotherAdmin(user.id, tx);
      if (choice.newOwnerId === user.id) throw new ValidationError('Neplatné údaje', [{ field: 'newOwnerId', message: 'Nový vlastník musí byť iný používateľ' }]);
      const shared = await ownership.sharedAccountsOwnedBy(user.id, tx);
      let handedOver: OwnedSharedAccount[] = [];
      if (shared.length > 0 && choice.newOwnerId) handedOver = await ownership.handOver(user.id, choice.newOwnerId, meta, tx);
      else if (shared.length > 0 && !choice.deleteSharedAccounts) throw new ConflictError(OWNS_SHARED, { sharedAccounts: shared }, 'shared_account_owner');
      const deletedSharedAccounts = handedOver.length > 0 ? [] : shared;
      const sharesRemoved = (await ownership.recordSharesEnding(user.id, meta, tx)).length;
      const tasksHandedOver = choice.newOwnerId ? await this.handOverTasks(user.id, choice.newOwnerId, tx) : 0;
      const timesheets = await this.deps.files.removeAllForUser(user.id, tx);
      await this.deps.audit.record(
        {
          action: AuditActions.userDeleted,
          userId: user.id,
          username: user.username,
          details: {
            userId: user.id,
            role: user.role,
            timesheets,
            sharesRemoved,
            ...(handedOver.length > 0 ? { sharedAccountsHandedTo: choice.newOwnerId, sharedAccounts: handedOver.map((a) => a.emailAccountId) } : {}),
            ...(deletedSharedAccounts.length > 0 ? { sharedAccountsDeleted: deletedSharedAccounts.map((a) => a.emailAccountId) } : {}),
            ...(tasksHandedOver > 0 ? { tasksHandedTo: choice.newOwnerId, tasksHandedOver } : {}),
          },
        },
        meta,
        tx,
      );
      await this.deps.repository.destroy(user, tx);
      return { user, handedOver, deletedSharedAccounts, sharesRemoved };
    });
  }

  /** The email accounts the user owns that are shared with others (what deleting the user must decide about). */
  sharedAccountsOwnedBy(id: string): Promise<OwnedSharedAccount[]> {
    return this.deps.ownership.sharedAccountsOwnedBy(id);
  }

  /** The leaver's open tasks to the successor; an unknown successor is the same 404 as the mailboxes' hand-over gives. */
  private async handOverTasks(userId: string, newOwnerId: string, tx: Tx): Promise<number> {
    try {
      return await this.deps.tasks.handOver(userId, newOwnerId, tx);
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new NotFoundError(NOT_FOUND);
      throw err;
    }
  }

  private async assertAnotherAdmin(userId: string, tx: Tx): Promise<void> {
    const others = await this.deps.repository.countOtherAdmins(userId, tx);
    if (others === 0) throw new ConflictError(LAST_ADMIN);
  }

  private async lockUser(id: string, tx: Tx): Promise<User> {
    const user = await this.deps.repository.lockById(id, tx);
    if (!user) throw new NotFoundError(NOT_FOUND);
    return user;
  }
}
