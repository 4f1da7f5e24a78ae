import { Op } from 'sequelize';
import { EmailAccount, MailSyncState, User } from '../models/index.js';
import type { Tx } from '../db/transactions.js';

export type AccountWithSync = EmailAccount & { syncState?: MailSyncState | null };
export type AdminEmailAccount = EmailAccount & { syncState?: MailSyncState | null; user?: User };

/** The columns of a new account row; the id, timestamps and defaults come from the database. */
export interface NewEmailAccount {
  /** Chosen before the insert: the sealed password is bound to it. */
  id: string;
  userId: string;
  email: string;
  /** Already sealed by the SecretBox. */
  emailPassword: string;
  jmapAccountId: string;
  isPrimary: boolean;
  isActive: boolean;
}

const WITH_SYNC_STATE = { model: MailSyncState, as: 'syncState' };
const WITH_OWNER = { model: User, as: 'user', attributes: ['id', 'username'] };

/** All data access of the email-accounts area: accounts, their sync state rows and the owner's row lock. */
export class EmailAccountRepository {
  /**
   * Locks the owner's row (FOR UPDATE) and answers it, or null when the user does not exist.
   * One writer per user at a time: the one-primary rule spans several account rows.
   */
  lockOwner(userId: string, tx: Tx): Promise<User | null> {
    return User.findByPk(userId, { transaction: tx, lock: tx.LOCK.UPDATE });
  }

  findByEmail(userId: string, email: string, tx?: Tx): Promise<EmailAccount | null> {
    // Addresses are stored lower-cased, so equality is case-insensitive.
    return EmailAccount.findOne({ where: { userId, email }, transaction: tx });
  }

  countOfUser(userId: string, tx?: Tx): Promise<number> {
    return EmailAccount.count({ where: { userId }, transaction: tx });
  }

  countActiveOfUser(userId: string, tx?: Tx): Promise<number> {
    return EmailAccount.count({ where: { userId, isActive: true }, transaction: tx });
  }

  /**
   * The account row and its sync state row (idle, due at once), in the caller's transaction. The
   * owner's email_account_members row is the database's: trigger email_accounts_owner_row, function
   * crm_email_account_owner_row() (migration 0009).
   */
  async create(values: NewEmailAccount, tx?: Tx): Promise<AccountWithSync> {
    const account = await EmailAccount.create(values, { transaction: tx });
    const syncState = await MailSyncState.create(
      {
        emailAccountId: account.id,
        status: 'idle',
        emailState: null,
        lastAttemptAt: null,
        lastSuccessAt: null,
        lastError: null,
        nextAttemptAt: new Date(),
        requestedAt: new Date(),
        lockedBy: null,
        lockedUntil: null,
      },
      { transaction: tx },
    );
    return Object.assign(account, { syncState });
  }

  /** The given accounts with their sync state, oldest first (who may see them is EmailAccountAccess's question). */
  findManyWithSync(accountIds: readonly string[], tx?: Tx): Promise<AccountWithSync[]> {
    if (accountIds.length === 0) return Promise.resolve([]);
    return EmailAccount.findAll({ where: { id: [...accountIds] }, include: [WITH_SYNC_STATE], order: [['createdAt', 'ASC']], transaction: tx });
  }

  /** The account with its sync state, or null. */
  findWithSync(accountId: string, tx?: Tx): Promise<AccountWithSync | null> {
    return EmailAccount.findByPk(accountId, { include: [WITH_SYNC_STATE], transaction: tx });
  }

  /** Every user's accounts (or one user's) with sync state and owner: by owner's username, primary first, oldest first. */
  listWithOwners(userId: string | undefined, tx?: Tx): Promise<AdminEmailAccount[]> {
    return EmailAccount.findAll({
      where: userId ? { userId } : {},
      include: [WITH_SYNC_STATE, WITH_OWNER],
      order: [
        [{ model: User, as: 'user' }, 'username', 'ASC'],
        ['isPrimary', 'DESC'],
        ['createdAt', 'ASC'],
      ],
      transaction: tx,
    });
  }

  /** Any user's account by id, with its owner (id, username). */
  findWithOwner(accountId: string, tx?: Tx): Promise<AdminEmailAccount | null> {
    return EmailAccount.findByPk(accountId, { include: [WITH_OWNER], transaction: tx });
  }

  /** Forgets the sync cursor: the next run starts the mailbox from scratch. */
  async resetSyncCursor(accountId: string, tx?: Tx): Promise<void> {
    await MailSyncState.update({ emailState: null }, { where: { emailAccountId: accountId }, transaction: tx });
  }

  /** Idle, no failures, due now: lifts an auth_failed stop so the sync may try again at once. */
  async restartSync(accountId: string, tx?: Tx): Promise<void> {
    await MailSyncState.update({ status: 'idle', consecutiveFailures: 0, nextAttemptAt: new Date(), lastError: null }, { where: { emailAccountId: accountId }, transaction: tx });
  }

  async clearPrimary(userId: string, tx?: Tx): Promise<void> {
    await EmailAccount.update({ isPrimary: false }, { where: { userId, isPrimary: true }, transaction: tx });
  }

  /** The user's oldest account becomes primary; nothing happens when the user has none left. */
  async promoteOldest(userId: string, tx?: Tx): Promise<void> {
    const next = await EmailAccount.findOne({ where: { userId }, order: [['createdAt', 'ASC']], transaction: tx });
    if (next) await next.update({ isPrimary: true }, { transaction: tx });
  }

  /** Rows whose sealed password does not start with `prefix` (old format or a retired key). */
  listSealedOtherThan(prefix: string): Promise<Array<Pick<EmailAccount, 'id' | 'emailPassword'>>> {
    // The prefix is "v2:<hex>:": no LIKE wildcard in it.
    return EmailAccount.findAll({ attributes: ['id', 'emailPassword'], where: { emailPassword: { [Op.notLike]: `${prefix}%` } }, order: [['id', 'ASC']] });
  }

  /** Replaces the sealed password only if it is still `from`; answers whether it did. */
  async replaceSealedPassword(id: string, from: string, to: string, tx?: Tx): Promise<boolean> {
    const [count] = await EmailAccount.update({ emailPassword: to }, { where: { id, emailPassword: from }, transaction: tx, silent: true });
    return count === 1;
  }

  async save(account: EmailAccount, tx?: Tx): Promise<void> {
    await account.save({ transaction: tx });
  }

  /** Deletes the account; its shares, contacts, emails and the sync state go with it (ON DELETE CASCADE). */
  async destroy(account: EmailAccount, tx?: Tx): Promise<void> {
    await account.destroy({ transaction: tx });
  }
}
