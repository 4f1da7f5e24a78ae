import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { formatBytes } from '../../src/cli/format.js';
import { renderTable } from '../../src/cli/table.js';
import { monthQuery } from '../../src/timesheets/timesheet-schemas.js';
import type { MonthReport } from '../../src/timesheets/timesheet-month.js';
import { parse } from '../../src/shared/validation.js';

export default class TimesheetsReport extends BaseCommand {
  static override description =
    'Who uploaded timesheets for a month: every active user with their number of files and bytes, those with none ' +
    'included (who is missing). Disabled users appear only when they have files in the month.';

  static override examples = ['<%= config.bin %> timesheets report --year 2026 --month 3', '<%= config.bin %> timesheets report --year 2026 --month 3 --json'];

  static override flags = {
    year: Flags.integer({ description: 'year of the period', required: true }),
    month: Flags.integer({ description: 'month of the period (1-12)', required: true }),
  };

  async run(): Promise<MonthReport> {
    const { flags } = await this.parse(TimesheetsReport);
    const { year, month } = parse(monthQuery, { year: String(flags.year), month: String(flags.month) }, 'Neplatné obdobie výkazu');
    const ctx = await this.appContext();
    const report = await ctx.services.timesheetMonth.report(year, month);
    const period = `${year}-${String(month).padStart(2, '0')}`;
    if (report.users.length > 0) {
      this.log(
        renderTable(report.users, [
          { header: 'username', get: (u) => u.username },
          { header: 'name', get: (u) => [u.firstName, u.lastName].filter(Boolean).join(' ') || null, maxWidth: 40 },
          { header: 'files', get: (u) => (u.files === 0 ? 'MISSING' : u.files) },
          { header: 'size', get: (u) => formatBytes(u.bytes) },
          { header: 'disabled', get: (u) => (u.disabled ? 'yes' : 'no') },
        ]),
      );
    }
    const { totals } = report;
    this.log(`\n${period}: ${totals.usersWithFiles} of ${totals.users} user(s) uploaded ${totals.files} file(s), ${formatBytes(totals.bytes)}.`);
    return report;
  }
}
