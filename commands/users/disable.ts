import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { presentAdminUser, type AdminUserView } from '../../src/admin/admin-presenters.js';

export default class UsersDisable extends BaseCommand {
  static override description =
    'Disable a user who left: they can no longer log in (403 account_disabled), every session of theirs ends at once, ' +
    'the colleague directory no longer lists them and their own email accounts stop syncing unless an active user ' +
    'shares them. Their data stays; "users enable" undoes it, "users delete" removes them for good. The last active ' +
    'admin cannot be disabled.';

  static override examples = ['<%= config.bin %> users disable peter', '<%= config.bin %> users disable peter --yes --json'];

  static override args = {
    username: Args.string({ description: 'login name of the user', required: true }),
  };

  async run(): Promise<{ user: AdminUserView; changed: boolean; revokedSessions: number }> {
    const { args, flags } = await this.parse(UsersDisable);
    const ctx = await this.appContext();
    const target = await ctx.services.userAdmin.getByUsername(args.username);
    if (!target.disabledAt) {
      const question = `Disable ${target.role} "${target.username}"? They are logged out everywhere and cannot log in until enabled again.`;
      if (!(await this.confirm(question, flags.yes))) this.error('Zrušené, nič sa nezmenilo', { exit: 1 });
    }
    const { user, changed, revokedSessions } = await ctx.services.userLifecycle.disable(target.id, this.cliMeta());
    this.log(changed ? `Disabled "${user.username}"; ${revokedSessions} session(s) ended.` : `"${user.username}" was already disabled; nothing changed.`);
    return { user: presentAdminUser(user), changed, revokedSessions };
  }
}
