import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { formatBytes } from '../../src/cli/format.js';
import type { MigrateSummary } from '../../src/storage/storage-service.js';

export default class TimesheetsMigrateStorage extends BaseCommand {
  static override description =
    'Copy every stored file (timesheets and every other kind) between the local data directory and the S3 bucket ' +
    'of CRM_S3_*, under the same keys. Resumable and idempotent: a file already in the target is skipped, so after an ' +
    'interruption run it again. --remove-source deletes each source file once its copy is confirmed, and only when ' +
    'CRM_STORAGE already names the target (the service reads it). Audited.';

  static override examples = [
    '<%= config.bin %> timesheets migrate-storage --to s3                  # while the service still runs on local',
    'CRM_STORAGE=s3 <%= config.bin %> timesheets migrate-storage --to s3 --remove-source   # after switching: stragglers, then the local copies go',
    '<%= config.bin %> timesheets migrate-storage --to local --json',
  ];

  static override flags = {
    to: Flags.string({ description: 'the storage to copy into', options: ['s3', 'local'], required: true }),
    'remove-source': Flags.boolean({ description: 'delete each file from the other storage once the target holds it', default: false }),
  };

  async run(): Promise<MigrateSummary> {
    const { flags } = await this.parse(TimesheetsMigrateStorage);
    const to = flags.to as 's3' | 'local';
    const ctx = await this.appContext();
    const summary = await ctx.services.storage.migrate({ to, removeSource: flags['remove-source'] }, this.cliMeta());
    this.log(
      `${summary.from} -> ${summary.to}: ${summary.copied} file(s) copied (${formatBytes(summary.bytes)}), ${summary.skipped} already there` +
        (flags['remove-source'] ? `, ${summary.removed} removed from ${summary.from}.` : '.'),
    );
    return summary;
  }
}
