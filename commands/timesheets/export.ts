import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { commandHost } from '../../src/cli/command-host.js';
import { formatBytes } from '../../src/cli/format.js';
import { monthQuery } from '../../src/timesheets/timesheet-schemas.js';
import { parse } from '../../src/shared/validation.js';

interface ExportSummary {
  year: number;
  month: number;
  out: string;
  files: number;
  bytes: number;
  missing: number;
  size: number | null;
}

export default class TimesheetsExport extends BaseCommand {
  static override description =
    'Write every timesheet file of a month into one zip, a folder per username (<username>/<fileName>), for payroll. ' +
    'Streams with constant memory; --out - writes the zip to stdout (messages go to stderr). An existing file is ' +
    'replaced only after confirmation (or --yes). The export is audited.';

  static override examples = [
    '<%= config.bin %> timesheets export --year 2026 --month 3 --out vykazy-2026-03.zip',
    '<%= config.bin %> timesheets export --year 2026 --month 3 --out - > vykazy.zip',
    '<%= config.bin %> timesheets export --year 2026 --month 3 --out vykazy.zip --yes --json',
  ];

  static override flags = {
    year: Flags.integer({ description: 'year of the period', required: true }),
    month: Flags.integer({ description: 'month of the period (1-12)', required: true }),
    out: Flags.string({ char: 'o', description: 'the zip file to write, or - for stdout', required: true }),
  };

  async run(): Promise<ExportSummary> {
    const { flags } = await this.parse(TimesheetsExport);
    const { year, month } = parse(monthQuery, { year: String(flags.year), month: String(flags.month) }, 'Neplatné obdobie výkazu');
    const toStdout = flags.out === '-';
    if (toStdout && this.jsonEnabled()) this.error('--json nejde spolu s --out - (zip ide na štandardný výstup)', { exit: 2 });
    const target = toStdout ? '-' : path.resolve(flags.out);
    if (!toStdout && fs.existsSync(target) && !(await this.confirm(`${target} exists. Replace it?`, flags.yes))) this.error('Zrušené, nič sa nezmenilo', { exit: 1 });
    const ctx = await this.appContext();
    const archive = await ctx.services.timesheetMonth.export(year, month, this.cliMeta());
    if (toStdout) {
      await pipeline(archive.stream, commandHost().stdout);
    } else {
      // Written beside the target and renamed at the end: a failed export never leaves half a zip under its name.
      const partial = `${target}.${process.pid}.partial`;
      try {
        await pipeline(archive.stream, fs.createWriteStream(partial, { flags: 'wx', mode: 0o600 }));
        await fs.promises.rename(partial, target);
      } catch (err) {
        await fs.promises.rm(partial, { force: true });
        throw err;
      }
    }
    const summary = `${archive.files} file(s), ${formatBytes(archive.bytes)}${archive.missing > 0 ? `; ${archive.missing} file(s) missing from storage were left out (see the log)` : ''}`;
    const line = `Exported ${summary} of ${year}-${String(month).padStart(2, '0')} to ${toStdout ? 'stdout' : target}.`;
    if (toStdout) commandHost().stderr.write(`${line}\n`);
    else this.log(line);
    return { year, month, out: target, files: archive.files, bytes: archive.bytes, missing: archive.missing, size: archive.size ?? null };
  }
}
