import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { presentUser } from '../../src/users/user-presenter.js';
import { newUserSchema } from '../../src/users/user-schemas.js';
import { parse } from '../../src/http/validate.js';

export default class UsersCreate extends BaseCommand {
  static override description =
    'Create a user with a random temporary password, printed once. The user sets their own password at first login.';

  static override examples = [
    '<%= config.bin %> users create --username jana --role admin --first-name Jana --last-name Nováková',
    '<%= config.bin %> users create --username peter --role member --json',
  ];

  static override flags = {
    username: Flags.string({ char: 'u', description: 'login name (unique, case-insensitive)', required: true }),
    role: Flags.string({ char: 'r', description: 'role', options: ['admin', 'member'], default: 'member' }),
    'first-name': Flags.string({ description: 'first name' }),
    'last-name': Flags.string({ description: 'last name' }),
  };

  async run(): Promise<{ user: ReturnType<typeof presentUser>; temporaryPassword: string }> {
    const { flags } = await this.parse(UsersCreate);
    const input = parse(newUserSchema, {
      username: flags.username,
      role: flags.role,
      firstName: flags['first-name'],
      lastName: flags['last-name'],
    });
    const ctx = await this.appContext();
    const { user, temporaryPassword } = await ctx.services.users.create(input, this.cliMeta());
    this.log(`Created ${user.role} "${user.username}" (${user.id}).`);
    this.log(`Temporary password (shown once, valid ${ctx.config.tempPasswordTtlDays} days): ${temporaryPassword}`);
    return { user: presentUser(user), temporaryPassword };
  }
}
