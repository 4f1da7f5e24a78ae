import type { User } from '../models/index.js';
import type { Page, PageRequest } from '../shared/pagination.js';
import type { UserRepository } from './user-repository.js';

export interface DirectoryQuery extends PageRequest {
  /** Contained in the username, first or last name; case and diacritics do not matter. */
  search?: string;
}

/** One colleague as every signed-in user may see them: who they are, nothing about their login or role. */
export type DirectoryEntry = Pick<User, 'id' | 'username' | 'firstName' | 'lastName'>;

/**
 * The colleague directory: what a member needs to share a mailbox with someone (their id) without
 * the admin API. Active users only; a disabled leaver is not offered to anyone.
 */
export class UserDirectory {
  constructor(private readonly users: Pick<UserRepository, 'list'>) {}

  async list(query: DirectoryQuery): Promise<Page<DirectoryEntry>> {
    const { items, total } = await this.users.list(
      { search: query.search, activeOnly: true, byName: true, attributes: ['id', 'username', 'firstName', 'lastName'] },
      { page: query.page, limit: query.limit },
    );
    return { items: items.map((u) => ({ id: u.id, username: u.username, firstName: u.firstName, lastName: u.lastName })), total };
  }
}
