import { Op, col, fn, where, type CreationAttributes, type InferAttributes, type WhereOptions } from 'sequelize';
import { User, type Role } from '../models/index.js';
import type { Tx } from '../db/transactions.js';
import { escapeLikeBeforeFold } from '../db/escape-like.js';
import { offsetOf, type Page, type PageRequest } from '../shared/pagination.js';
import { findAndCountInTurn } from '../db/find-and-count.js';

export interface UserFilter {
  role?: Role;
  /** Matched case- and accent-insensitively against username, first and last name. */
  search?: string;
  /** Only users who are not disabled (the colleague directory). */
  activeOnly?: boolean;
  /** Sorted by last name, first name, username (the directory) instead of by username. */
  byName?: boolean;
  /** Only these columns (the directory reads no hashes). */
  attributes?: Array<keyof InferAttributes<User>>;
}

/** Every query of the users table: the users area, login, onboarding and the audit reader use these. */
export class UserRepository {
  findById(id: string, tx?: Tx): Promise<User | null> {
    return User.findByPk(id, { transaction: tx });
  }

  /** Usernames are unique case-insensitively (index on lower(username)). */
  findByUsername(username: string, tx?: Tx): Promise<User | null> {
    return User.findOne({ where: this.lowerUsernameIs(username), transaction: tx });
  }

  /** Only the id of the user of that name (the audit reader's lookup). */
  async findIdByUsername(username: string, tx?: Tx): Promise<string | undefined> {
    const user = await User.findOne({ where: this.lowerUsernameIs(username), attributes: ['id'], transaction: tx });
    return user?.id;
  }

  /** The user row locked FOR UPDATE until the transaction ends. */
  lockById(id: string, tx: Tx): Promise<User | null> {
    return User.findByPk(id, { transaction: tx, lock: tx.LOCK.UPDATE });
  }

  /**
   * Every admin row locked in id order before anything else: two admins demoting each other at the
   * same moment are decided one after the other (and never deadlock), so one of them stays admin.
   */
  lockAdmins(tx: Tx): Promise<User[]> {
    return User.findAll({ where: { role: 'admin' }, attributes: ['id'], order: [['id', 'ASC']], lock: tx.LOCK.UPDATE, transaction: tx });
  }

  /** Admins other than `userId` who can still log in: a disabled admin manages nothing. */
  countOtherAdmins(userId: string, tx?: Tx): Promise<number> {
    return User.count({ where: { role: 'admin', disabledAt: null, id: { [Op.ne]: userId } }, transaction: tx });
  }

  async list(filter: UserFilter, page: PageRequest): Promise<Page<User>> {
    const conditions: WhereOptions<User>[] = [];
    if (filter.role) conditions.push({ role: filter.role });
    if (filter.search) conditions.push(foldedSearch(filter.search));
    if (filter.activeOnly) conditions.push({ disabledAt: null });
    const { rows, count } = await findAndCountInTurn(User, {
      where: { [Op.and]: conditions },
      order: filter.byName
        ? [
            [fn('lower', fn('coalesce', col('last_name'), '')), 'ASC'],
            [fn('lower', fn('coalesce', col('first_name'), '')), 'ASC'],
            [fn('lower', col('username')), 'ASC'],
            ['id', 'ASC'],
          ]
        : [
            [fn('lower', col('username')), 'ASC'],
            ['id', 'ASC'],
          ],
      limit: page.limit,
      offset: offsetOf(page),
      ...(filter.attributes ? { attributes: filter.attributes } : {}),
    });
    return { items: rows, total: count };
  }

  create(values: CreationAttributes<User>, tx?: Tx): Promise<User> {
    return User.create(values, { transaction: tx });
  }

  /** Replaces a password (or temporary password) hash only if it is still `from`; answers whether it did. */
  async replaceHash(id: string, field: 'password' | 'tempPassword', from: string, to: string, tx?: Tx): Promise<boolean> {
    const [count] = await User.update({ [field]: to }, { where: { id, [field]: from }, transaction: tx, silent: true });
    return count === 1;
  }

  async save(user: User, tx?: Tx): Promise<User> {
    return user.save({ transaction: tx });
  }

  /** The database removes the user's rows (cascade). */
  async destroy(user: User, tx?: Tx): Promise<void> {
    await user.destroy({ transaction: tx });
  }

  private lowerUsernameIs(username: string) {
    return where(fn('lower', col('username')), username.toLowerCase());
  }
}

/**
 * Text contained in the username, first or last name, whatever the case and diacritics ("sebo" finds
 * "Šebo"): both sides folded by crm_fold (migration 0018); the term is bound, never spliced in.
 */
function foldedSearch(search: string): WhereOptions<User> {
  const pattern = `%${escapeLikeBeforeFold(search)}%`;
  const folded = fn('crm_fold', pattern);
  return {
    [Op.or]: ['username', 'first_name', 'last_name'].map((column) => where(fn('crm_fold', col(column)), Op.like, folded)),
  };
}
