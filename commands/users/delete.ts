import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import type { SharedAccountsChoice } from '../../src/users/user-admin-service.js';

export default class UsersDelete extends BaseCommand {
  static override description =
    'Delete a user with everything they own: email accounts, contacts, emails, sessions and timesheet files; their ' +
    'shares of other accounts end. Email accounts they share with others go to --new-owner, or are deleted with ' +
    'their data only on an explicit answer (or --yes). Audit records stay (with the username). The last remaining ' +
    'admin cannot be deleted.';

  static override examples = [
    '<%= config.bin %> users delete peter',
    '<%= config.bin %> users delete peter --new-owner jana --yes   # shared email accounts go to jana',
    '<%= config.bin %> users delete peter --yes --json              # shared email accounts are deleted too',
  ];

  static override args = {
    username: Args.string({ description: 'login name of the user', required: true }),
  };

  static override flags = {
    'new-owner': Flags.string({ description: 'login name of the user who takes over the email accounts the deleted user shares with others' }),
  };

  async run(): Promise<{ deleted: { id: string; username: string }; handedOver: string[]; deletedSharedAccounts: string[] }> {
    const { args, flags } = await this.parse(UsersDelete);
    const ctx = await this.appContext();
    const { userAdmin } = ctx.services;
    const target = await userAdmin.getByUsername(args.username);
    const shared = await userAdmin.sharedAccountsOwnedBy(target.id);
    let choice: SharedAccountsChoice = {};
    let fate = '';
    let newOwner = flags['new-owner'];
    if (shared.length > 0) {
      const list = shared.map((a) => `${a.email} (shared with ${a.members} other${a.members === 1 ? '' : 's'})`).join(', ');
      if (newOwner === undefined && !flags.yes) {
        const answer = await this.ask(
          `"${target.username}" owns email accounts shared with others: ${list}.\nUsername of their new owner, or "delete" to delete them with all their data (empty cancels):`,
        );
        if (answer === undefined) this.error('Používateľ vlastní zdieľané emailové účty: zvoľte --new-owner POUŽÍVATEĽ, alebo --yes (odstráni ich aj s údajmi)', { exit: 2 });
        if (!answer) this.error('Zrušené, nič sa nezmenilo', { exit: 1 });
        if (answer !== 'delete') newOwner = answer;
      }
      if (newOwner !== undefined) {
        choice = { newOwnerId: (await userAdmin.getByUsername(newOwner)).id };
        fate = ` Their shared email accounts (${list}) go to "${newOwner}".`;
      } else {
        choice = { deleteSharedAccounts: true };
        fate = ` Their shared email accounts (${list}) are deleted for everyone.`;
      }
    }
    const question = `Delete ${target.role} "${target.username}" with their email accounts, contacts, emails and timesheets?${fate} This cannot be undone.`;
    if (!(await this.confirm(question, flags.yes))) this.error('Zrušené, nič sa nezmenilo', { exit: 1 });
    const { user, handedOver, deletedSharedAccounts } = await userAdmin.delete(target.id, this.cliMeta(), choice);
    for (const a of handedOver) this.log(`Email account ${a.email} now belongs to "${newOwner}".`);
    for (const a of deletedSharedAccounts) this.log(`Deleted shared email account ${a.email} (it was shared with ${a.members} other user(s)).`);
    this.log(`Deleted "${user.username}" (${user.id}).`);
    return {
      deleted: { id: user.id, username: user.username },
      handedOver: handedOver.map((a) => a.emailAccountId),
      deletedSharedAccounts: deletedSharedAccounts.map((a) => a.emailAccountId),
    };
  }
}
