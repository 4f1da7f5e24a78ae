import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { presentMember } from '../../src/email-accounts/email-account-presenter.js';
import type { MemberView } from '../../src/email-accounts/email-account-schemas.js';
import { idParams, parse } from '../../src/shared/validation.js';

export default class EmailAccountsUnshare extends BaseCommand {
  static override aliases = ['mail-accounts:unshare'];
  static override description =
    "End a user's access to a shared email account (on their next request, on every instance). The owner cannot be " +
    'removed: hand the ownership over first (email-accounts share ACCOUNT --user NEW --role owner).';

  static override examples = ['<%= config.bin %> email-accounts unshare 3f0c… --user peter'];

  static override args = {
    account: Args.string({ description: 'email account id (see email-accounts list)', required: true }),
  };

  static override flags = {
    user: Flags.string({ description: 'login name of the member to remove', required: true }),
  };

  async run(): Promise<{ removed: MemberView }> {
    const { args, flags } = await this.parse(EmailAccountsUnshare);
    const { id: accountId } = parse(idParams, { id: args.account });
    const ctx = await this.appContext();
    const user = await ctx.services.userAdmin.getByUsername(flags.user);
    const removed = presentMember(await ctx.services.emailAccountSharing.unshare({ kind: 'admin' }, accountId, user.id, this.cliMeta()));
    this.log(`"${removed.username}" no longer has access to email account ${accountId} (was ${removed.role}).`);
    return { removed };
  }
}
