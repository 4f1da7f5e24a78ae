import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { formatBytes } from '../../src/cli/format.js';
import { progressBar } from '../../src/cli/progress.js';
import { ValidationError } from '../../src/errors/app-errors.js';

interface PurgeReport {
  before: string;
  username: string | null;
  dryRun: boolean;
  count: number;
  bytes: number;
}

export default class TimesheetsPurge extends BaseCommand {
  static override description =
    'Delete timesheets (rows and files) of periods before a month, for retention. Shows how many files and bytes ' +
    'match and asks before deleting; --dry-run only reports. The purge is audited.';

  static override examples = [
    '<%= config.bin %> timesheets purge --before 2023-01 --dry-run',
    '<%= config.bin %> timesheets purge --before 2023-01 --yes',
    '<%= config.bin %> timesheets purge --before 2024-07 --user jana --json --yes',
  ];

  static override flags = {
    before: Flags.string({ description: 'delete periods strictly before this month (YYYY-MM)', required: true }),
    user: Flags.string({ char: 'u', description: 'only the timesheets of this username' }),
    'dry-run': Flags.boolean({ description: 'only report what would be deleted', default: false }),
  };

  async run(): Promise<PurgeReport> {
    const { flags } = await this.parse(TimesheetsPurge);
    const match = /^(\d{4})-(\d{2})$/.exec(flags.before);
    if (!match) throw new ValidationError('Neplatný mesiac', [{ field: 'before', message: 'Očakáva sa YYYY-MM, napr. 2023-01' }]);
    const before = { year: Number(match[1]), month: Number(match[2]) };
    const ctx = await this.appContext();
    const owner = flags.user ? await ctx.services.userAdmin.getByUsername(flags.user) : undefined;
    const scope = { before, userId: owner?.id };
    const report = (r: { count: number; bytes: number }, dryRun: boolean): PurgeReport => ({
      before: flags.before,
      username: owner?.username ?? null,
      dryRun,
      ...r,
    });
    const whose = owner ? ` of "${owner.username}"` : '';

    const preview = await ctx.services.timesheets.purge({ ...scope, dryRun: true }, this.cliMeta());
    const summary = `${preview.count} timesheet file(s)${whose}, ${formatBytes(preview.bytes)}, from periods before ${flags.before}`;
    if (flags['dry-run'] || preview.count === 0) {
      this.log(preview.count === 0 ? `Nothing to delete: no timesheets${whose} from periods before ${flags.before}.` : `Would delete ${summary}.`);
      return report(preview, flags['dry-run']);
    }
    if (!(await this.confirm(`Delete ${summary}? This cannot be undone.`, flags.yes))) this.error('Zrušené, nič sa nezmenilo', { exit: 1 });

    const bar = progressBar('Deleting', !this.jsonEnabled());
    bar.start(preview.count);
    let result;
    try {
      result = await ctx.services.timesheets.purge({ ...scope, dryRun: false, onProgress: (done, total) => bar.update(done, total) }, this.cliMeta());
    } finally {
      bar.stop();
    }
    this.log(`Deleted ${result.count} timesheet file(s)${whose}, ${formatBytes(result.bytes)} freed.`);
    return report(result, false);
  }
}
