import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { readSecretFromStdin } from '../../src/cli/secret-input.js';
import { presentAdminEmailAccount, type AdminEmailAccountView } from '../../src/admin/admin-presenters.js';
import { parse } from '../../src/shared/validation.js';
import { mailCredentialsSchema } from '../../src/users/user-schemas.js';

export default class EmailAccountsAttach extends BaseCommand {
  static override aliases = ['mail-accounts:attach'];
  static override description =
    'Attach a email account to a user. The credentials are checked against the JMAP server first; the first ' +
    'account of a user becomes primary. The running service syncs it at its next tick.';

  static override examples = [
    'printf %s "$MAIL_PASSWORD" | <%= config.bin %> email-accounts attach jana --email jana@example.com --password-stdin',
    '<%= config.bin %> email-accounts attach jana --email jana@example.com --password-stdin   # asks without echo',
  ];

  static override args = {
    username: Args.string({ description: 'login name of the owner', required: true }),
  };

  static override flags = {
    email: Flags.string({ description: 'mail address (JMAP login)', required: true }),
    'password-stdin': Flags.boolean({ description: 'read the mail password from stdin (asked without echo at a terminal)', exclusive: ['password'] }),
    password: Flags.string({ description: 'mail password (visible in shell history and ps: prefer --password-stdin)' }),
  };

  async run(): Promise<{ emailAccount: AdminEmailAccountView }> {
    const { args, flags } = await this.parse(EmailAccountsAttach);
    if (flags.password === undefined && !flags['password-stdin']) this.error('Give the mail password with --password-stdin or --password', { exit: 2 });
    const emailPassword = flags['password-stdin'] ? await readSecretFromStdin('Heslo k emailu: ') : flags.password;
    const input = parse(mailCredentialsSchema, { email: flags.email, emailPassword });
    const ctx = await this.appContext();
    const user = await ctx.services.userAdmin.getByUsername(args.username);
    const account = await ctx.services.emailAccountAdmin.attach(user, input, this.cliMeta());
    const view = presentAdminEmailAccount(Object.assign(account, { user }));
    this.log(`Attached ${view.email} to "${user.username}"${view.isPrimary ? ' as the primary account' : ''} (${view.id}).`);
    return { emailAccount: view };
  }
}
