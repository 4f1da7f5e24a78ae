import { ConflictError, NotFoundError } from '../errors/app-errors.js';
import type { Role, User } from '../models/index.js';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import { isUniqueViolation } from '../db/db-errors.js';
import { inTransaction, type Transactions, type Tx } from '../db/transactions.js';
import type { PasswordHasher } from './password-hasher.js';
import { generateTemporaryPassword } from './temp-password.js';
import type { UserEvents } from './user-events.js';
import type { UserRepository } from './user-repository.js';

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
    private readonly deps: {
      repository: UserRepository;
      transactions: Transactions;
      hasher: PasswordHasher;
      audit: AuditService;
      tempPasswordTtlDays: number;
      /** user.created into the outbox, for webhooks (issue 48). */
      events?: UserEvents;
    },
  ) {}

  /**
   * Creates a user with a fresh temporary password. Runs inside the caller's transaction when one is
   * given, so that a later step (e.g. validating mail credentials) can undo the whole creation.
   */
  async create(input: NewUser, meta: RequestMeta, outer?: Tx): Promise<CreatedUser> {
    const temporaryPassword = generateTemporaryPassword();
    const tempPassword = await this.deps.hasher.hash(temporaryPassword);
    const work = async (tx: Tx) => {
      const existing = await this.findByUsername(input.username, tx);
      if (existing) throw new ConflictError('Používateľské meno už existuje');
      const user = await this.deps.repository.create(
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
        tx,
      );
      await this.deps.audit.record({ action: AuditActions.userCreated, userId: user.id, username: user.username, details: { role: user.role } }, meta, tx);
      await this.deps.events?.created(user, tx);
      return user;
    };
    try {
      const user = await inTransaction(this.deps.transactions, outer, work);
      return { user, temporaryPassword };
    } catch (err) {
      // Two admins creating the same username at once: the unique index decides, not a 500.
      if (isUniqueViolation(err)) throw new ConflictError('Používateľské meno už existuje');
      throw err;
    }
  }

  findByUsername(username: string, tx?: Tx): Promise<User | null> {
    return this.deps.repository.findByUsername(username, tx);
  }

  async getById(id: string, tx?: Tx): Promise<User> {
    const user = await this.deps.repository.findById(id, tx);
    if (!user) throw new NotFoundError('Používateľ neexistuje');
    return user;
  }

  tempPasswordExpiry(): Date {
    return new Date(Date.now() + this.deps.tempPasswordTtlDays * 24 * 3600 * 1000);
  }
}
