import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { presentMember } from '../../src/email-accounts/email-account-presenter.js';
import type { MemberView } from '../../src/email-accounts/email-account-schemas.js';
import { idParams, parse } from '../../src/shared/validation.js';

export default class EmailAccountsMembers extends BaseCommand {
  static override aliases = ['mail-accounts:members'];
  static override description = 'Show who has access to an email account: the owner first, then every share with its role and rights.';

  static override examples = ['<%= config.bin %> email-accounts members 3f0c…', '<%= config.bin %> email-accounts members 3f0c… --json'];

  static override args = {
    account: Args.string({ description: 'email account id (see email-accounts list)', required: true }),
  };

  async run(): Promise<{ items: MemberView[] }> {
    const { args } = await this.parse(EmailAccountsMembers);
    const { id: accountId } = parse(idParams, { id: args.account });
    const ctx = await this.appContext();
    const items: MemberView[] = [];
    // An account has few members; pages of 100 until all are read.
    for (let page = 1; ; page++) {
      const { items: batch, total } = await ctx.services.emailAccountSharing.members({ kind: 'admin' }, accountId, { page, limit: 100 });
      items.push(...batch.map(presentMember));
      if (items.length >= total || batch.length === 0) break;
    }
    this.log(
      renderTable(items, [
        { header: 'user', get: (m) => m.username },
        { header: 'user id', get: (m) => m.userId },
        { header: 'role', get: (m) => m.role },
        { header: 'read', get: (m) => (m.canRead ? 'yes' : 'no') },
        { header: 'send', get: (m) => (m.canSend ? 'yes' : 'no') },
        { header: 'since', get: (m) => m.createdAt },
      ]),
    );
    return { items };
  }
}
