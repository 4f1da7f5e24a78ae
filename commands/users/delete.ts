import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';

export default class UsersDelete extends BaseCommand {
  static override description =
    'Delete a user with everything they own: email accounts, contacts, emails, sessions and timesheet files. ' +
    'Audit records stay (with the username). The last remaining admin cannot be deleted.';

  static override examples = ['<%= config.bin %> users delete peter', '<%= config.bin %> users delete peter --yes --json'];

  static override args = {
    username: Args.string({ description: 'login name of the user', required: true }),
  };

  async run(): Promise<{ deleted: { id: string; username: string } }> {
    const { args, flags } = await this.parse(UsersDelete);
    const ctx = await this.appContext();
    const target = await ctx.services.userAdmin.getByUsername(args.username);
    const question = `Delete ${target.role} "${target.username}" with their email accounts, contacts, emails and timesheets? This cannot be undone.`;
    if (!(await this.confirm(question, flags.yes))) this.error('Zrušené, nič sa nezmenilo', { exit: 1 });
    const user = await ctx.services.userAdmin.delete(target.id, this.cliMeta());
    this.log(`Deleted "${user.username}" (${user.id}).`);
    return { deleted: { id: user.id, username: user.username } };
  }
}
