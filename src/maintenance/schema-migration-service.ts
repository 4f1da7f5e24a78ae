import type { Sequelize } from 'sequelize';
import type { AuditService, RequestMeta } from '../audit/audit-service.js';
import { AuditActions } from '../audit/audit-service.js';
import { newestAppliedMigration } from '../db/migration-check.js';
import { migrateDownOne, migrateUp, type MigrationStep } from '../db/migrator.js';
import type { Logger } from '../logging/logger.js';

/** What one `db migrate` (or a serve's start) did to the schema. */
export interface SchemaChange {
  direction: 'up' | 'down';
  /** The newest applied migration before and after (null: none). */
  from: string | null;
  to: string | null;
  steps: MigrationStep[];
}

/**
 * The only two ways the schema changes outside a restore: apply what is pending, or revert the newest.
 * Each step is one log line (name, duration) and the whole change one audit record (`db.migrate`,
 * from/to), written after the migrations committed: a schema change is never silent.
 */
export class SchemaMigrationService {
  constructor(
    private readonly sequelize: Sequelize,
    private readonly audit: AuditService,
    private readonly logger: Logger,
  ) {}

  applyPending(meta: RequestMeta): Promise<SchemaChange> {
    return this.change('up', meta, (onStep) => migrateUp(this.sequelize, { onStep }));
  }

  revertNewest(meta: RequestMeta): Promise<SchemaChange> {
    return this.change('down', meta, (onStep) => migrateDownOne(this.sequelize, { onStep }));
  }

  private async change(direction: SchemaChange['direction'], meta: RequestMeta, run: (onStep: (step: MigrationStep) => void) => Promise<string[]>): Promise<SchemaChange> {
    const from = await newestAppliedMigration(this.sequelize);
    const steps: MigrationStep[] = [];
    const onStep = (step: MigrationStep) => {
      steps.push(step);
      this.logger.info(step.direction === 'up' ? 'migration applied' : 'migration reverted', { migration: step.name, durationMs: step.durationMs });
    };
    try {
      await run(onStep);
    } catch (err) {
      const to = await newestAppliedMigration(this.sequelize);
      this.logger.error('migration failed', { err, from, to });
      await this.audit.record(
        { action: AuditActions.dbMigrate, success: false, details: { direction, from, to, steps, error: err instanceof Error ? err.message : String(err) } },
        meta,
      );
      throw err;
    }
    const to = await newestAppliedMigration(this.sequelize);
    if (steps.length > 0) {
      // Reverting the very first migration drops audit_logs itself: then the log line is the only record.
      await this.audit.record({ action: AuditActions.dbMigrate, details: { direction, from, to, steps } }, meta);
    }
    return { direction, from, to, steps };
  }
}
