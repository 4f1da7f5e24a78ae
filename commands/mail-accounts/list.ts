import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { presentAdminMailAccount, type AdminMailAccountView } from '../../src/admin/admin-presenters.js';

export default class MailAccountsList extends BaseCommand {
  static override description = 'List mail accounts with their sync status: of one user, or of everyone. Passwords are never shown.';

  static override examples = ['<%= config.bin %> mail-accounts list', '<%= config.bin %> mail-accounts list jana --json'];

  static override args = {
    username: Args.string({ description: 'only the accounts of this user' }),
  };

  async run(): Promise<{ items: AdminMailAccountView[] }> {
    const { args } = await this.parse(MailAccountsList);
    const ctx = await this.appContext();
    const owner = args.username ? await ctx.services.userAdmin.getByUsername(args.username) : undefined;
    const items = (await ctx.services.mailAccountAdmin.list(owner?.id)).map(presentAdminMailAccount);
    if (items.length === 0) {
      this.log(owner ? `"${owner.username}" has no mail accounts.` : 'No mail accounts.');
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
