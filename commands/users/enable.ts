import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { presentAdminUser, type AdminUserView } from '../../src/admin/admin-presenters.js';

export default class UsersEnable extends BaseCommand {
  static override description = 'Enable a disabled user again: they can log in with their password, appear in the colleague directory and their ' + 'email accounts sync again.';

  static override examples = ['<%= config.bin %> users enable peter', '<%= config.bin %> users enable peter --json'];

  static override args = {
    username: Args.string({ description: 'login name of the user', required: true }),
  };

  async run(): Promise<{ user: AdminUserView; changed: boolean }> {
    const { args } = await this.parse(UsersEnable);
    const ctx = await this.appContext();
    const target = await ctx.services.userAdmin.getByUsername(args.username);
    const { user, changed } = await ctx.services.userLifecycle.enable(target.id, this.cliMeta());
    this.log(changed ? `Enabled "${user.username}"; they can log in again.` : `"${user.username}" is not disabled; nothing changed.`);
    return { user: presentAdminUser(user), changed };
  }
}
