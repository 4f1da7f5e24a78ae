import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { presentMember } from '../../src/email-accounts/email-account-presenter.js';
import type { MemberView } from '../../src/email-accounts/email-account-schemas.js';
import { AppError } from '../../src/errors/app-errors.js';
import { idParams, parse } from '../../src/shared/validation.js';

export default class EmailAccountsShare extends BaseCommand {
  static override aliases = ['mail-accounts:share'];
  static override description =
    'Share an email account with a user, or change their share: editor (edits contacts and the read state, may sync) ' +
    'or viewer (reads only); --no-read hides the emails but shows the contacts; --can-send allows sending. ' +
    '--role owner hands the ownership over (the previous owner stays as an editor). The change takes effect on the ' +
    "user's next request and is audited.";

  static override examples = [
    '<%= config.bin %> email-accounts share 3f0c… --user jana --role editor --can-send',
    '<%= config.bin %> email-accounts share 3f0c… --user peter --role viewer --no-read --json',
    '<%= config.bin %> email-accounts share 3f0c… --user jana --role owner',
  ];

  static override args = {
    account: Args.string({ description: 'email account id (see email-accounts list)', required: true }),
  };

  static override flags = {
    user: Flags.string({ description: 'login name of the user to share with', required: true }),
    role: Flags.string({ description: 'their role on the account', options: ['editor', 'viewer', 'owner'], required: true }),
    'can-send': Flags.boolean({ description: 'may send from the account (not for viewers)', default: false }),
    read: Flags.boolean({ description: 'may read the emails (--no-read: contacts only)', default: true, allowNo: true }),
  };

  async run(): Promise<{ member: MemberView; created: boolean }> {
    const { args, flags } = await this.parse(EmailAccountsShare);
    const { id: accountId } = parse(idParams, { id: args.account });
    const ctx = await this.appContext();
    const { userAdmin, emailAccountSharing: sharing } = ctx.services;
    const user = await userAdmin.getByUsername(flags.user);
    const admin = { kind: 'admin' } as const;
    const role = flags.role as 'editor' | 'viewer' | 'owner';
    let created = false;
    let member;
    if (role === 'owner') {
      member = await sharing.transferOwnership(admin, accountId, user.id, this.cliMeta());
    } else {
      const rights = { role, canRead: flags.read, canSend: flags['can-send'] };
      try {
        member = await sharing.share(admin, accountId, { userId: user.id, ...rights }, this.cliMeta());
        created = true;
      } catch (err) {
        // An admin states the rights the user should have: an existing share is changed to them.
        if (!(err instanceof AppError && err.code === 'share_exists')) throw err;
        member = await sharing.change(admin, accountId, user.id, rights, this.cliMeta());
      }
    }
    const view = presentMember(member);
    const rights = `${view.role}${view.canRead ? '' : ', no read'}${view.canSend ? ', can send' : ''}`;
    this.log(
      `${role === 'owner' ? 'Ownership of' : created ? 'Shared' : 'Changed the share of'} email account ${accountId} ${role === 'owner' ? 'now with' : 'with'} "${view.username}" (${rights}).`,
    );
    return { member: view, created };
  }
}
