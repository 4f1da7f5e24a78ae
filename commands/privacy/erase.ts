import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import type { ErasureResult } from '../../src/privacy/privacy-service.js';

export default class PrivacyErase extends BaseCommand {
  static override description =
    'Answer an erasure request: delete the contacts of an email address, every email it took part in and their links, ' +
    'in every email account (one transaction per account), and make it stick: no later sync — incremental, full, or the ' +
    'first sync of a re-linked mailbox — stores that mail again. Mail the person sends after the erasure is stored (a new ' +
    'relationship). The mail server is not touched. The audit log names the address only by a keyed hash.';

  static override examples = [
    '<%= config.bin %> privacy erase --email jana.novakova@example.com',
    '<%= config.bin %> privacy erase --email jana.novakova@example.com --yes --json',
  ];

  static override flags = {
    email: Flags.string({ description: 'the address of the person', required: true }),
  };

  async run(): Promise<ErasureResult> {
    const { flags } = await this.parse(PrivacyErase);
    const ctx = await this.appContext();
    const { privacy } = ctx.services;
    const address = privacy.address(flags.email);
    const question = `Erase every contact and email of ${address} in every email account? This cannot be undone.`;
    if (!(await this.confirm(question, flags.yes))) this.error('Zrušené, nič sa nezmenilo', { exit: 1 });
    const result = await privacy.erase(address, this.cliMeta());
    for (const a of result.accounts) {
      this.log(`  ${a.emailAccount}: ${a.emails} email(s), ${a.contacts} contact(s), ${a.contactSuppressions} contact suppression(s), ${a.tasks} task(s)`);
    }
    this.log(
      `Erased ${address}: ${result.emails} email(s), ${result.contacts} contact(s) and ${result.tasks} task(s) in ${result.accounts.length} email account(s), ${result.people} person record(s); ` +
        `${result.auditRecordsRedacted} audit record(s) now name it by hash. Mail dated up to ${result.erasedAt} will not be synced again.`,
    );
    if (result.companiesDeleted > 0) this.log('  The company of its domain had no other contact and was deleted with its notes.');
    for (const c of result.companiesKept) {
      this.log(`  Kept the company ${c.domain} (${c.id}): others are filed there; review what staff wrote on it for this person.`);
    }
    return result;
  }
}
