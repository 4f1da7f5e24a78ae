import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { commandHost } from '../../src/cli/command-host.js';
import { formatBytes } from '../../src/cli/format.js';
import type { BackupSummary } from '../../src/backup/backup-service.js';
import { authenticationProblem, type Authentication } from '../../src/backup/signing.js';
import { releaseVersion } from '../../src/shared/release-version.js';
import type { VerifyReport } from '../../src/backup/verify.js';

export default class DbBackup extends BaseCommand {
  static override description =
    'Write one archive of the whole service: the schema version, every table (one consistent snapshot, taken while ' +
    'the service runs), the timesheet files and a fingerprint of the encryption key (never the key), with counts and ' +
    'checksums, signed (BACKUP_SIGNING_KEY, or a key derived from CRM_ENCRYPTION_KEY). With --verify, read an archive and check every ' +
    'count and checksum, the signature and the key instead (exit 1 if damaged, forged, signed with a key not configured here, or unsigned without --allow-unsigned). ' +
    'Restore it with `db restore`. The encryption key is NOT in the archive: keep CRM_ENCRYPTION_KEY separately.';

  static override examples = [
    '<%= config.bin %> db backup /var/backups/staff-crm/crm-$(date +%F).tar.gz',
    '<%= config.bin %> db backup - | ssh backup@vault "cat > crm.tar.gz"',
    '<%= config.bin %> db backup --verify /var/backups/staff-crm/crm-2025-01-31.tar.gz',
    '<%= config.bin %> db backup crm.tar.gz --json',
  ];

  static override args = {
    file: Args.string({ description: 'archive path (written as FILE.partial, renamed when complete, mode 0600); - for stdout', required: true }),
  };

  static override flags = {
    verify: Flags.boolean({ description: 'check an existing archive instead of writing one', default: false }),
    'allow-unsigned': Flags.boolean({
      description: 'with --verify: exit 0 for an intact archive without a signature (written before backups were signed); one signed with a key not configured here still fails',
      default: false,
    }),
    // Only for tests: cuts table data into small parts, which 8 MiB parts need large tables for.
    'part-size': Flags.integer({ hidden: true, min: 1024, description: 'bytes of COPY data per archive part' }),
  };

  async run(): Promise<BackupSummary | VerifyReport> {
    const { args, flags } = await this.parse(DbBackup);
    if (args.file === '-' && this.jsonEnabled() && !flags.verify) this.error('--json cannot share stdout with the archive (FILE -)', { exit: 2 });
    const ctx = await this.appContext({ migrate: false });
    if (flags.verify) return this.verify(ctx.services.backup.verify(args.file), flags['allow-unsigned']);

    const summary = await ctx.services.backup.backup(args.file, { appVersion: releaseVersion(), partBytes: flags['part-size'] }, this.cliMeta());
    const say = (line: string) => (args.file === '-' ? this.logToStderr(line) : this.log(line));
    say(
      `Backup written: ${summary.file}\n` +
        `  ${summary.tables} tables, ${summary.rows} rows, ${summary.files} timesheet files (${formatBytes(summary.fileBytes)})\n` +
        `  archive ${formatBytes(summary.bytes)} in ${(summary.durationMs / 1000).toFixed(1)} s; schema ${summary.schemaVersion}; key fingerprint ${summary.keyFingerprint}`,
    );
    if (summary.missingFiles.length > 0) {
      this.warn(`${summary.missingFiles.length} timesheet file(s) referenced by the database were missing and are not in the archive: ${summary.missingFiles.join(', ')}`);
    }
    return summary;
  }

  private async verify(pending: Promise<VerifyReport>, allowUnsigned: boolean): Promise<VerifyReport> {
    const report = await pending;
    if (report.keyStatus === 'different') {
      this.warn(
        'the archive was made with a different encryption key than the configured CRM_ENCRYPTION_KEY: the mail ' +
          'passwords in it are unreadable with this configuration (restore needs the original key, or --ignore-key-mismatch ' +
          'and re-entering every mail password)',
      );
    }
    if (report.schemaStatus === 'newer' || report.schemaStatus === 'unrelated') {
      this.warn(
        `the archive's schema (${report.schemaVersion}) is not one this program knows: restore it with the crm-admin version that wrote it (${report.appVersion}) or newer`,
      );
    }
    if (!report.intact || report.authentication?.status === 'forged') {
      commandHost().stderr.write(`Archive DAMAGED: ${report.file}\n${report.problems.map((p) => `  - ${p}`).join('\n')}\n`);
      if (this.jsonEnabled()) this.logJson(report);
      this.exit(1);
    }
    const unauthenticated = authenticationProblem(report.authentication!);
    const refusal = unauthenticated && refusalHint(report.authentication!, allowUnsigned);
    if (refusal) this.notAuthenticated(report, unauthenticated, refusal);
    const signature = unauthenticated ? 'NOT AUTHENTICATED (accepted with --allow-unsigned)' : `signed (${(report.authentication as { key: string }).key})`;
    const key = report.keyStatus === 'same' ? 'matches CRM_ENCRYPTION_KEY' : report.keyStatus === 'retired' ? 'one of CRM_ENCRYPTION_OLD_KEYS' : 'DIFFERENT';
    this.log(
      `Archive ${unauthenticated ? 'intact' : 'OK'}: ${report.file} (created ${report.createdAt}, crm-admin ${report.appVersion}, schema ${report.schemaVersion})\n` +
        `  ${report.tables.length} tables, ${report.rows} rows, ${report.files} timesheet files (${formatBytes(report.fileBytes)}); ` +
        `signature: ${signature}; key: ${key}`,
    );
    return report;
  }

  private notAuthenticated(report: VerifyReport, problem: string, hint: string): never {
    commandHost().stderr.write(`Archive NOT AUTHENTICATED: ${report.file}\n  - ${problem}\n  (${hint})\n`);
    if (this.jsonEnabled()) this.logJson(report);
    return this.exit(1);
  }
}

/**
 * Why an intact archive that is not signed by a configured key fails --verify, or null when it passes.
 * --allow-unsigned accepts an archive with no signature only: a key id not configured here may be
 * anybody's (restore refuses it too; issue 52, finding 18).
 */
function refusalHint(auth: Authentication, allowUnsigned: boolean): string | null {
  if (auth.status === 'unknown-key') return 'intact; not accepted with --allow-unsigned, which is only for an archive without a signature';
  return allowUnsigned ? null : 'intact; restore it only if you know where it came from: --allow-unsigned';
}
