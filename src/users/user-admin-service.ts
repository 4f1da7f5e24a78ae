import { Op, type Sequelize, type Transaction, type WhereOptions } from 'sequelize';
import { ConflictError, NotFoundError } from '../errors/app-errors.js';
import { User, type EmailAccount, type MailSyncState, type Role } from '../models/index.js';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { SessionService } from '../auth/session-service.js';
import type { EmailAccountService } from '../email-accounts/email-account-service.js';
import type { PasswordHasher } from './password-hasher.js';
import { escapeLike } from '../db/escape-like.js';
import { generateTemporaryPassword } from './temp-password.js';
import type { CreatedUser, NewUser, UserService } from './user-service.js';

/** What user deletion needs from the timesheet store: rows in the caller's transaction, files after its commit. */
export interface UserFileCleanup {
  removeAllForUser(userId: string, options: { transaction?: Transaction }): Promise<{ count: number; bytes: number }>;
}

export interface UserListQuery {
  role?: Role;
  /** Matched case-insensitively against username, first and last name. */
  search?: string;
  page: number;
  limit: number;
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
const NOT_FOUND = 'Používateľ neexistuje';

/**
 * What an administrator does to other users, for the admin API and crm-admin alike: list, create
 * (optionally with a email account), change names and role, issue a new temporary password, delete.
 * There is always at least one admin left, or nobody could manage the system any more.
 */
export class UserAdminService {
  constructor(
    private readonly deps: {
      sequelize: Sequelize;
      users: UserService;
      hasher: PasswordHasher;
      sessions: SessionService;
      emailAccounts: EmailAccountService;
      audit: AuditService;
      files: UserFileCleanup;
    },
  ) {}

  async list(query: UserListQuery): Promise<{ items: User[]; total: number }> {
    const conditions: WhereOptions<User>[] = [];
    if (query.role) conditions.push({ role: query.role });
    if (query.search) {
      const pattern = `%${escapeLike(query.search)}%`;
      conditions.push({ [Op.or]: ['username', 'firstName', 'lastName'].map((field) => ({ [field]: { [Op.iLike]: pattern } })) });
    }
    const { sequelize } = this.deps;
    const { rows, count } = await User.findAndCountAll({
      where: { [Op.and]: conditions },
      order: [[sequelize.fn('lower', sequelize.col('username')), 'ASC'], ['id', 'ASC']],
      limit: query.limit,
      offset: (query.page - 1) * query.limit,
    });
    return { items: rows, total: count };
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
   * The mail server is asked before the account row is written (EmailAccountService.add).
   */
  async create(input: NewUser & { email?: string; emailPassword?: string }, meta: RequestMeta): Promise<CreatedUserWithMail> {
    const { email, emailPassword, ...user } = input;
    if (email === undefined || emailPassword === undefined) return this.deps.users.create(user, meta);
    return this.deps.sequelize.transaction(async (transaction) => {
      const created = await this.deps.users.create(user, meta, transaction);
      const emailAccount = await this.deps.emailAccounts.add(
        created.user.id,
        { email, emailPassword },
        meta,
        { auditAction: AuditActions.emailAccountAttached, transaction },
      );
      return { ...created, emailAccount };
    });
  }

  async update(id: string, changes: UserChanges, meta: RequestMeta): Promise<User> {
    return this.deps.sequelize.transaction(async (transaction) => {
      if (changes.role === 'member') await this.lockAdmins(transaction);
      const user = await this.lockUser(id, transaction);
      const names: Record<string, string | null> = {};
      if (changes.firstName !== undefined && changes.firstName !== user.firstName) names.firstName = changes.firstName;
      if (changes.lastName !== undefined && changes.lastName !== user.lastName) names.lastName = changes.lastName;
      const oldRole = user.role;
      const roleChange = changes.role !== undefined && changes.role !== oldRole;
      if (roleChange && oldRole === 'admin') await this.assertAnotherAdmin(user.id, transaction);
      user.set({ ...names, ...(roleChange ? { role: changes.role } : {}) });
      await user.save({ transaction });
      if (Object.keys(names).length > 0) {
        await this.deps.audit.record(
          { action: AuditActions.userUpdated, userId: user.id, username: user.username, details: { fields: Object.keys(names) } },
          meta,
          transaction,
        );
      }
      if (roleChange) {
        await this.deps.audit.record(
          { action: AuditActions.roleChanged, userId: user.id, username: user.username, details: { from: oldRole, to: user.role } },
          meta,
          transaction,
        );
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
    const user = await this.deps.sequelize.transaction(async (transaction) => {
      const user = await this.lockUser(id, transaction);
      user.set({ password: null, changedPassword: false, tempPassword, tempPasswordExpiresAt: this.deps.users.tempPasswordExpiry() });
      await user.save({ transaction });
      const revokedSessions = await this.deps.sessions.revokeAllForUser(user.id, 'admin_password_reset', { transaction });
      await this.deps.audit.record(
        { action: AuditActions.tempPasswordReset, userId: user.id, username: user.username, details: { revokedSessions } },
        meta,
        transaction,
      );
      return user;
    });
    return { user, temporaryPassword };
  }

  /**
   * The database removes the user's rows (cascade). Timesheet rows go in the same transaction and
   * their files only after it commits, so a refused or failed deletion leaves every file in place.
   */
  async delete(id: string, meta: RequestMeta): Promise<User> {
    return this.deps.sequelize.transaction(async (transaction) => {
      await this.lockAdmins(transaction);
      const user = await this.lockUser(id, transaction);
      if (user.role === 'admin') await this.assertAnotherAdmin(user.id, transaction);
      const timesheets = await this.deps.files.removeAllForUser(user.id, { transaction });
      await this.deps.audit.record(
        { action: AuditActions.userDeleted, userId: user.id, username: user.username, details: { userId: user.id, role: user.role, timesheets } },
        meta,
        transaction,
      );
      await user.destroy({ transaction });
      return user;
    });
  }

  /**
   * Every admin row locked in id order before anything else: two admins demoting each other at the
   * same moment are decided one after the other (and never deadlock), so one of them stays admin.
   */
  private async lockAdmins(transaction: Transaction): Promise<User[]> {
    return User.findAll({ where: { role: 'admin' }, attributes: ['id'], order: [['id', 'ASC']], lock: transaction.LOCK.UPDATE, transaction });
  }

  private async assertAnotherAdmin(userId: string, transaction: Transaction): Promise<void> {
    const others = await User.count({ where: { role: 'admin', id: { [Op.ne]: userId } }, transaction });
    if (others === 0) throw new ConflictError(LAST_ADMIN);
  }

  private async lockUser(id: string, transaction: Transaction): Promise<User> {
    const user = await User.findByPk(id, { transaction, lock: transaction.LOCK.UPDATE });
    if (!user) throw new NotFoundError(NOT_FOUND);
    return user;
  }
}
