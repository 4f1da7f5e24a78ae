import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { presentAdminEmailAccount, type AdminEmailAccountView } from '../../src/admin/admin-presenters.js';

export default class EmailAccountsList extends BaseCommand {
  static override aliases = ['mail-accounts:list'];
  static override description = 'List email accounts with their sync status: of one user, or of everyone. Passwords are never shown.';

  static override examples = ['<%= config.bin %> email-accounts list', '<%= config.bin %> email-accounts list jana --json'];

  static override args = {
    username: Args.string({ description: 'only the accounts of this user' }),
  };

  async run(): Promise<{ items: AdminEmailAccountView[] }> {
    const { args } = await this.parse(EmailAccountsList);
    const ctx = await this.appContext();
    const owner = args.username ? await ctx.services.userAdmin.getByUsername(args.username) : undefined;
    const items = (await ctx.services.emailAccountAdmin.list(owner?.id)).map(presentAdminEmailAccount);
    if (items.length === 0) {
      this.log(owner ? `"${owner.username}" has no email accounts.` : 'No email accounts.');
    } else {
      this.log(
        renderTable(items, [
          { header: 'id', get: (a) => a.id },
          { header: 'user', get: (a) => a.username },
          { header: 'email', get: (a) => a.email },
          { header: 'primary', get: (a) => (a.isPrimary ? 'yes' : '') },
          { header: 'active', get: (a) => (a.isActive ? 'yes' : 'no') },
          { header: 'sync', get: (a) => a.sync.status },
          { header: 'last success', get: (a) => a.sync.lastSuccessAt },
        ]),
      );
    }
    return { items };
  }
}
