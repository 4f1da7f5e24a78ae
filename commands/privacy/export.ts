import { Flags } from '@oclif/core';
import { openArchiveTarget } from '../../src/backup/archive-writer.js';
import { BaseCommand } from '../../src/cli/base-command.js';
import type { ExportSummary } from '../../src/privacy/privacy-service.js';

export default class PrivacyExport extends BaseCommand {
  static override description =
    'Answer an access request: write one zip with everything the CRM holds about an email address, across every ' +
    'email account — contacts with their notes, every email the address took part in (headers, text, attachment names ' +
    'and sizes), the company of its domain with what staff wrote on it, which accounts and users hold them, audit records naming it — as JSON Lines files with a README. ' +
    'Streamed from one consistent snapshot; memory stays flat however much mail there is.';

  static override examples = [
    '<%= config.bin %> privacy export --email jana.novakova@example.com --out jana.zip',
    '<%= config.bin %> privacy export --email jana.novakova@example.com --out - > jana.zip',
  ];

  static override flags = {
    email: Flags.string({ description: 'the address of the person', required: true }),
    out: Flags.string({ description: 'zip file to write (as FILE.partial, renamed when complete, mode 0600); - for stdout', required: true }),
  };

  async run(): Promise<ExportSummary> {
    const { flags } = await this.parse(PrivacyExport);
    if (flags.out === '-' && this.jsonEnabled()) this.error('--json cannot share stdout with the zip (--out -)', { exit: 2 });
    const ctx = await this.appContext();
    const { privacy } = ctx.services;
    const address = privacy.address(flags.email);
    const target = await openArchiveTarget(flags.out);
    let summary: ExportSummary;
    try {
      summary = await privacy.export(address, target.stream, this.cliMeta(), { end: target.end });
      await target.commit();
    } catch (err) {
      await target.abort();
      throw err;
    }
    const say = (line: string) => (flags.out === '-' ? this.logToStderr(line) : this.log(line));
    say(
      `Export written${flags.out === '-' ? '' : `: ${flags.out}`}\n` +
        `  ${summary.accounts} email account(s), ${summary.contacts} contact(s), ${summary.people} person record(s), ${summary.companies} company(ies), ` +
        `${summary.emails} email(s), ${summary.drafts} draft(s), ${summary.scheduledEmails} scheduled email(s), ${summary.conversationComments} comment(s), ${summary.contactSuppressions} contact suppression(s), ` +
        `${summary.tasks} task(s), ${summary.auditRecords} audit record(s)`,
    );
    return summary;
  }
}
