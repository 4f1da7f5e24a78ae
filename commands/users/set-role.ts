import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { presentAdminUser, type AdminUserView } from '../../src/admin/admin-presenters.js';
import type { Role } from '../../src/models/index.js';

export default class UsersSetRole extends BaseCommand {
  static override description = 'Change the role of a user. The last remaining admin cannot be demoted.';

  static override examples = ['<%= config.bin %> users set-role jana admin', '<%= config.bin %> users set-role peter member --json'];

  static override args = {
    username: Args.string({ description: 'login name of the user', required: true }),
    role: Args.string({ description: 'new role', required: true, options: ['admin', 'member'] }),
  };

  async run(): Promise<{ user: AdminUserView; previousRole: Role }> {
    const { args } = await this.parse(UsersSetRole);
    const ctx = await this.appContext();
    const target = await ctx.services.userAdmin.getByUsername(args.username);
    const previousRole = target.role;
    const user = await ctx.services.userAdmin.update(target.id, { role: args.role as Role }, this.cliMeta());
    this.log(previousRole === user.role ? `"${user.username}" is already ${user.role}.` : `"${user.username}" is now ${user.role} (was ${previousRole}).`);
    return { user: presentAdminUser(user), previousRole };
  }
}
