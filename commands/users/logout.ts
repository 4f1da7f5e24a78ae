import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';

export default class UsersLogout extends BaseCommand {
  static override description =
    'End every session of a user at once, on every instance (a lost laptop, a shared computer). The account stays ' +
    'usable: they can log in again with their password ("users disable" or "users reset-password" also stop that).';

  static override examples = ['<%= config.bin %> users logout jana', '<%= config.bin %> users logout jana --yes --json'];

  static override args = {
    username: Args.string({ description: 'login name of the user', required: true }),
  };

  async run(): Promise<{ username: string; revokedSessions: number }> {
    const { args, flags } = await this.parse(UsersLogout);
    const ctx = await this.appContext();
    const user = await ctx.services.userAdmin.getByUsername(args.username);
    const open = (await ctx.services.sessionManagement.list(user.id)).length;
    if (!(await this.confirm(`End all ${open} open session(s) of "${user.username}"?`, flags.yes))) this.error('Zrušené, nič sa nezmenilo', { exit: 1 });
    const revokedSessions = await ctx.services.sessionManagement.revokeAll({ id: user.id, username: user.username }, this.cliMeta());
    this.log(`Ended ${revokedSessions} session(s) of "${user.username}".`);
    return { username: user.username, revokedSessions };
  }
}
