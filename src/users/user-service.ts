import { UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import { ConflictError, NotFoundError } from '../errors/app-errors.js';
import { User, type Role } from '../models/index.js';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { PasswordHasher } from './password-hasher.js';
import { generateTemporaryPassword } from './temp-password.js';

export interface NewUser {
  username: string;
  firstName?: string | null;
  lastName?: string | null;
  role: Role;
}

export interface CreatedUser {
  user: User;
  /** Shown once to the admin; only its hash is stored. */
  temporaryPassword: string;
}

export class UserService {
  constructor(
    private readonly sequelize: Sequelize,
    private readonly hasher: PasswordHasher,
    private readonly audit: AuditService,
    private readonly tempPasswordTtlDays: number,
  ) {}

  /**
   * Creates a user with a fresh temporary password. Runs inside the caller's transaction when one is
   * given, so that a later step (e.g. validating mail credentials) can undo the whole creation.
   */
  async create(input: NewUser, meta: RequestMeta, outer?: Transaction): Promise<CreatedUser> {
    const temporaryPassword = generateTemporaryPassword();
    const tempPassword = await this.hasher.hash(temporaryPassword);
    const work = async (transaction: Transaction) => {
      const existing = await this.findByUsername(input.username, transaction);
      if (existing) throw new ConflictError('Používateľské meno už existuje');
      const user = await User.create(
        {
          username: input.username,
          firstName: input.firstName ?? null,
          lastName: input.lastName ?? null,
          role: input.role,
          password: null,
          tempPassword,
          tempPasswordExpiresAt: this.tempPasswordExpiry(),
          lastLogin: null,
        },
        { transaction },
      );
      await this.audit.record(
        { action: AuditActions.userCreated, userId: user.id, username: user.username, details: { role: user.role } },
        meta,
        transaction,
      );
      return user;
    };
    try {
      const user = outer ? await work(outer) : await this.sequelize.transaction(work);
      return { user, temporaryPassword };
    } catch (err) {
      // Two admins creating the same username at once: the unique index decides, not a 500.
      if (err instanceof UniqueConstraintError) throw new ConflictError('Používateľské meno už existuje');
      throw err;
    }
  }

  findByUsername(username: string, transaction?: Transaction): Promise<User | null> {
    return User.findOne({
      where: this.sequelize.where(this.sequelize.fn('lower', this.sequelize.col('username')), username.toLowerCase()),
      transaction,
    });
  }

  async getById(id: string, transaction?: Transaction): Promise<User> {
    const user = await User.findByPk(id, { transaction });
    if (!user) throw new NotFoundError('Používateľ neexistuje');
    return user;
  }

  tempPasswordExpiry(): Date {
    return new Date(Date.now() + this.tempPasswordTtlDays * 24 * 3600 * 1000);
  }
}
