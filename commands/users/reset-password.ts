import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { presentAdminUser, type AdminUserView } from '../../src/admin/admin-presenters.js';

export default class UsersResetPassword extends BaseCommand {
  static override description =
    'Issue a new temporary password (printed once). The current password stops working, every session of the ' +
    'user ends at once, and the user goes through the password step of onboarding again.';

  static override examples = ['<%= config.bin %> users reset-password jana', '<%= config.bin %> users reset-password jana --yes --json'];

  static override args = {
    username: Args.string({ description: 'login name of the user', required: true }),
  };

  async run(): Promise<{ user: AdminUserView; temporaryPassword: string }> {
    const { args, flags } = await this.parse(UsersResetPassword);
    const ctx = await this.appContext();
    const target = await ctx.services.userAdmin.getByUsername(args.username);
    const question = `Reset the password of "${target.username}"? Their current password stops working and they are logged out everywhere.`;
    if (!(await this.confirm(question, flags.yes))) this.error('Zrušené, nič sa nezmenilo', { exit: 1 });
    const { user, temporaryPassword } = await ctx.services.userAdmin.resetTemporaryPassword(target.id, this.cliMeta());
    this.log(`Password of "${user.username}" reset; all their sessions are ended.`);
    this.log(`Temporary password (shown once, valid ${ctx.config.tempPasswordTtlDays} days): ${temporaryPassword}`);
    return { user: presentAdminUser(user), temporaryPassword };
  }
}
