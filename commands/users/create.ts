import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { readSecretFromStdin } from '../../src/cli/secret-input.js';
import { presentAdminUser, type AdminUserView } from '../../src/admin/admin-presenters.js';
import { newUserWithMailSchema } from '../../src/users/user-schemas.js';
import { parse } from '../../src/shared/validation.js';
import { presentEmailAccount, type EmailAccountView } from '../../src/email-accounts/email-account-presenter.js';

export default class UsersCreate extends BaseCommand {
  static override description =
    'Create a user with a random temporary password, printed once. The user sets their own password at first login.\n' +
    "With --email, the mail credentials are checked against the JMAP server and stored as the user's primary mail " +
    'account; if they are wrong, no user is created.';

  static override examples = [
    '<%= config.bin %> users create --username jana --role admin --first-name Jana --last-name Nováková',
    '<%= config.bin %> users create --username peter --role member --json',
    'printf %s "$MAIL_PASSWORD" | <%= config.bin %> users create --username eva --email eva@example.com --email-password-stdin',
  ];

  static override flags = {
    username: Flags.string({ char: 'u', description: 'login name (unique, case-insensitive)', required: true }),
    role: Flags.string({ char: 'r', description: 'role', options: ['admin', 'member'], default: 'member' }),
    'first-name': Flags.string({ description: 'first name' }),
    'last-name': Flags.string({ description: 'last name' }),
    email: Flags.string({ description: 'mail address to attach as the primary email account (needs a mail password)' }),
    'email-password': Flags.string({
      description: 'mail password (visible in shell history and ps: prefer --email-password-stdin)',
      dependsOn: ['email'],
      exclusive: ['email-password-stdin'],
    }),
    'email-password-stdin': Flags.boolean({
      description: 'read the mail password from stdin (asked without echo at a terminal)',
      dependsOn: ['email'],
    }),
  };

  async run(): Promise<{ user: AdminUserView; temporaryPassword: string; emailAccount?: EmailAccountView }> {
    const { flags } = await this.parse(UsersCreate);
    if (flags.email !== undefined && flags['email-password'] === undefined && !flags['email-password-stdin']) {
      this.error('--email needs --email-password-stdin or --email-password', { exit: 2 });
    }
    const emailPassword = flags['email-password-stdin'] ? await readSecretFromStdin('Heslo k emailu: ') : flags['email-password'];
    const input = parse(newUserWithMailSchema, {
      username: flags.username,
      role: flags.role,
      firstName: flags['first-name'],
      lastName: flags['last-name'],
      email: flags.email,
      emailPassword,
    });
    const ctx = await this.appContext();
    const { user, temporaryPassword, emailAccount } = await ctx.services.userAdmin.create(input, this.cliMeta());
    this.log(`Created ${user.role} "${user.username}" (${user.id}).`);
    if (emailAccount) this.log(`Primary email account ${emailAccount.email} attached and verified (${emailAccount.id}).`);
    this.log(`Temporary password (shown once, valid ${ctx.config.tempPasswordTtlDays} days): ${temporaryPassword}`);
    return { user: presentAdminUser(user), temporaryPassword, ...(emailAccount ? { emailAccount: presentEmailAccount(emailAccount) } : {}) };
  }
}
