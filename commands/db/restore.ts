import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { formatBytes } from '../../src/cli/format.js';
import type { RestoreSummary } from '../../src/backup/restore-service.js';

export default class DbRestore extends BaseCommand {
  static override description =
    "Restore an archive written by `db backup` into this configuration's database (embedded or DATABASE_URL, any " +
    'PostgreSQL 13+) and timesheet directory. The target should be empty: a database with rows is replaced only after ' +
    "a confirmation (--yes). The schema is migrated to exactly the archive's version (an archive from a newer program " +
    'is refused), all tables load in one transaction and every checksum is verified on the way: a damaged archive ' +
    'restores nothing. The whole archive is read and its signature checked before anything changes (standard input is ' +
    'first copied to a private file under TMPDIR); an archive without a signature (written before backups were signed) ' +
    'is refused unless --allow-unsigned; one signed with a key not configured here is refused even then (configure the key). An archive made with ' +
    'another CRM_ENCRYPTION_KEY is refused unless --ignore-key-mismatch. An archive of an earlier release is loaded at its ' +
    'own schema, then migrated to this release. Stop the service (and every instance using the database) first.';

  static override examples = [
    '<%= config.bin %> db restore /var/backups/staff-crm/crm-2025-01-31.tar.gz',
    'DATABASE_URL=postgres://crm@db.internal/crm <%= config.bin %> db restore crm.tar.gz   # embedded -> external',
    '<%= config.bin %> db restore crm.tar.gz --yes --json',
    'ssh backup@vault "cat crm.tar.gz" | <%= config.bin %> db restore - --yes',
    '<%= config.bin %> db restore crm-from-0.0.x.tar.gz --allow-unsigned   # an archive written before backups were signed',
  ];

  static override args = {
    file: Args.string({ description: 'archive written by db backup; - for stdin (then --yes is needed for a non-empty target)', required: true }),
  };

  static override flags = {
    'ignore-key-mismatch': Flags.boolean({
      description: 'restore although the archive was made with another encryption key (its mail passwords become unreadable); the signature is still checked',
      default: false,
    }),
    'allow-unsigned': Flags.boolean({
      description: 'restore an intact archive without a signature (written before backups were signed); audited. An archive signed with a key not configured here is still refused',
      default: false,
    }),
  };

  async run(): Promise<RestoreSummary> {
    const { args, flags } = await this.parse(DbRestore);
    // As the schema's owner (ADR 0171): a restore migrates, truncates and switches triggers off for its load.
    const ctx = await this.appContext({ migrate: false, asOwner: true });
    const { withSchemaOwner } = await import('../../src/db/schema-owner.js');
    const summary = await withSchemaOwner(ctx.db, () =>
      ctx.services.restore.restore(
        args.file,
        {
          ignoreKeyMismatch: flags['ignore-key-mismatch'],
          allowUnsigned: flags['allow-unsigned'],
          confirmReplace: async ({ rows, tables }) => {
            const list = Object.entries(tables)
              .map(([t, n]) => `${t} ${n}`)
              .join(', ');
            return this.confirm(`The target database is not empty (${rows} rows: ${list}). Replace ALL its data with the archive?`, flags.yes);
          },
        },
        this.cliMeta(),
      ),
    );
    if (summary.authentication !== 'signed') this.warn(`restored an archive that could not be authenticated (${summary.authentication}), as --allow-unsigned asked`);
    if (summary.keyStatus === 'different') this.warn('restored with a different encryption key: every mail account password must be entered again');
    const migrated = [
      summary.migrationsReverted.length ? `reverted ${summary.migrationsReverted.join(', ')}` : '',
      summary.migrationsApplied.length ? `applied ${summary.migrationsApplied.length} migration(s)` : '',
    ].filter(Boolean);
    this.log(
      `Restored ${summary.file}\n` +
        `  ${summary.tables} tables, ${summary.rows} rows, ${summary.files} timesheet files (${formatBytes(summary.fileBytes)})` +
        `${summary.replacedRows ? `, replacing ${summary.replacedRows} rows` : ''} in ${(summary.durationMs / 1000).toFixed(1)} s\n` +
        `  schema ${summary.schemaVersion}${migrated.length ? ` (${migrated.join('; ')})` : ''}; ${summary.sequences} sequence(s) reset`,
    );
    if (summary.migrationsAfterLoad.length > 0) {
      this.log(`  written by crm-admin ${summary.appVersion}: then migrated to this release (${summary.migrationsAfterLoad.join(', ')})`);
    }
    return summary;
  }
}
