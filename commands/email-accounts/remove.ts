import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { idParams, parse } from '../../src/shared/validation.js';

export default class EmailAccountsRemove extends BaseCommand {
  static override aliases = ['mail-accounts:remove'];
  static override description =
    'Remove a email account with its contacts and synced emails (the mailbox on the mail server is not touched). ' +
    'If it was the primary account, the oldest remaining one becomes primary.';

  static override examples = ['<%= config.bin %> email-accounts remove 3f0c…', '<%= config.bin %> email-accounts remove 3f0c… --yes --json'];

  static override args = {
    id: Args.string({ description: 'email account id (see email-accounts list)', required: true }),
  };

  async run(): Promise<{ removed: { id: string; email: string; username: string | null } }> {
    const { args, flags } = await this.parse(EmailAccountsRemove);
    const { id } = parse(idParams, { id: args.id });
    const ctx = await this.appContext();
    const account = await ctx.services.emailAccountAdmin.get(id);
    const owner = account.user?.username ?? account.userId;
    const question = `Remove email account ${account.email} of "${owner}" with its contacts and emails?`;
    if (!(await this.confirm(question, flags.yes))) this.error('Zrušené, nič sa nezmenilo', { exit: 1 });
    await ctx.services.emailAccountAdmin.remove(id, this.cliMeta());
    this.log(`Removed ${account.email} of "${owner}".`);
    return { removed: { id: account.id, email: account.email, username: account.user?.username ?? null } };
  }
}
