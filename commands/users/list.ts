import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { presentAdminUser, type AdminUserView } from '../../src/admin/admin-presenters.js';
import { listUsersQuery } from '../../src/admin/admin-schemas.js';
import { parse } from '../../src/shared/validation.js';
import { listResult } from '../../src/shared/pagination.js';

export default class UsersList extends BaseCommand {
  static override description = 'List users, sorted by username, with optional role and text filters; disabled users show since when.';

  static override examples = [
    '<%= config.bin %> users list',
    '<%= config.bin %> users list --role admin',
    '<%= config.bin %> users list --search nov --json',
    '<%= config.bin %> users list --page 2 --limit 20',
  ];

  static override flags = {
    role: Flags.string({ char: 'r', description: 'only users with this role', options: ['admin', 'member'] }),
    search: Flags.string({ char: 's', description: 'text contained in the username, first or last name (case- and accent-insensitive)' }),
    page: Flags.integer({ description: 'page number', min: 1, default: 1 }),
    limit: Flags.integer({ description: 'users per page', min: 1, max: 100, default: 50 }),
  };

  async run(): Promise<ReturnType<typeof listResult<AdminUserView>>> {
    const { flags } = await this.parse(UsersList);
    const query = parse(listUsersQuery, { role: flags.role, search: flags.search, page: flags.page, limit: flags.limit });
    const ctx = await this.appContext();
    const { items, total } = await ctx.services.userAdmin.list(query);
    const users = items.map(presentAdminUser);
    if (users.length === 0) {
      this.log(total === 0 ? 'No users match.' : `No users on page ${query.page} (${total} in total).`);
    } else {
      this.log(
        renderTable(users, [
          { header: 'username', get: (u) => u.username },
          { header: 'role', get: (u) => u.role },
          { header: 'name', get: (u) => [u.firstName, u.lastName].filter(Boolean).join(' ') || null, maxWidth: 40 },
          { header: 'onboarded', get: (u) => (u.changedPassword ? 'yes' : 'no') },
          { header: 'last login', get: (u) => u.lastLogin },
          { header: 'disabled', get: (u) => u.disabledAt ?? 'no' },
          { header: 'id', get: (u) => u.id },
        ]),
      );
      const from = (query.page - 1) * query.limit + 1;
      this.log(`\n${from}-${from + users.length - 1} of ${total}`);
    }
    return listResult(users, query, total);
  }
}
