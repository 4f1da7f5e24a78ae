import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';

export default class DbMigrate extends BaseCommand {
  static override description = 'Apply pending database migrations (or undo the latest with --down).';
  static override examples = ['<%= config.bin %> db migrate', '<%= config.bin %> db migrate --status --json', '<%= config.bin %> db migrate --down --yes'];
  static override flags = {
    down: Flags.boolean({ description: 'undo the most recent migration', default: false }),
    status: Flags.boolean({ description: 'only show applied and pending migrations', default: false }),
  };

  async run(): Promise<{
    applied?: string[];
    reverted?: string[];
    from?: string | null;
    to?: string | null;
    executed?: string[];
    pending?: string[];
    needsResync?: string[];
    resealed?: { resealed: number; failed: number };
  }> {
    const { flags } = await this.parse(DbMigrate);
    // As the schema's owner (ADR 0171): the service's own role may not change the schema.
    const ctx = await this.appContext({ migrate: false, asOwner: true });
    if (flags.status) {
      const { createMigrator } = await import('../../src/db/migrator.js');
      const migrator = createMigrator(ctx.db.sequelize);
      const executed = (await migrator.executed()).map((m) => m.name);
      const pending = (await migrator.pending()).map((m) => m.name);
      this.log(`applied: ${executed.join(', ') || '(none)'}\npending: ${pending.join(', ') || '(none)'}`);
      return { executed, pending };
    }
    // Each step is logged (name, duration) on stderr and the change audited (db.migrate, from/to).
    const { SchemaMigrationService } = await import('../../src/maintenance/schema-migration-service.js');
    const { withSchemaOwner } = await import('../../src/db/schema-owner.js');
    const schema = new SchemaMigrationService(ctx.db.sequelize, ctx.services.audit, ctx.logger);
    if (flags.down) {
      if (!(await this.confirm('Undo the most recent migration? Its tables and data are dropped.', flags.yes))) this.exit(1);
      const change = await withSchemaOwner(ctx.db, () => schema.revertNewest(this.cliMeta()));
      const reverted = change.steps.map((step) => step.name);
      this.log(`reverted: ${reverted.join(', ') || '(nothing to revert)'}`);
      return { reverted, from: change.from, to: change.to };
    }
    const change = await withSchemaOwner(ctx.db, () => schema.applyPending(this.cliMeta()));
    const applied = change.steps.map((step) => step.name);
    this.log(applied.length ? `applied: ${applied.map((name, i) => `${name} (${change.steps[i].durationMs} ms)`).join(', ')}` : 'database is up to date');
    // Mail passwords in an old format or under a retired key: re-sealed with the current one.
    if (change.needsResync.length > 0) this.log(`mail synced earlier needs a backfill after ${change.needsResync.join(', ')}: run crm-admin sync resync --all`);
    const resealed = await ctx.services.passwordReseal.run();
    if (resealed.resealed > 0) this.log(`mail passwords re-sealed: ${resealed.resealed}`);
    if (resealed.failed > 0) this.warn(`mail passwords that could not be re-sealed (key missing?): ${resealed.failed}`);
    return { applied, from: change.from, to: change.to, needsResync: change.needsResync, resealed };
  }
}
