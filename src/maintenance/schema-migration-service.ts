import type { Sequelize } from 'sequelize';
import type { AuditService, RequestMeta } from '../audit/audit-service.js';
import { AuditActions } from '../audit/audit-service.js';
import { anyStoredEmail, newestAppliedMigration } from '../db/migration-check.js';
import { migrateDownOne, migrateUp, type MigrationStep } from '../db/migrator.js';
import type { Logger } from '../logging/logger.js';

/** What one `db migrate` (or a serve's start) did to the schema. */
export interface SchemaChange {
  direction: 'up' | 'down';
  /** The newest applied migration before and after (null: none). */
  from: string | null;
  to: string | null;
  steps: MigrationStep[];
  /** Applied migrations after which mail synced earlier lacks what they added (MIGRATIONS_NEEDING_RESYNC), when mail is stored. */
  needsResync: string[];
}

/** The command that fills in what such a migration added, for the log line and `db migrate`'s output. */
export const RESYNC_COMMAND = 'crm-admin sync resync --all';

/**
 * Migrations that add what the sync stores of each email, so that mail synced before them lacks it until
 * it is read from the server again (RESYNC_COMMAND). Keyed by name: the migrations themselves are
 * never edited. 0020: addresses (From, To, Cc, Reply-To as lists); 0026: participants of every address
 * header (Sender and Bcc were never stored).
 */
export const MIGRATIONS_NEEDING_RESYNC: ReadonlySet<string> = new Set(['0020-email-detail-columns', '0026-participants-every-address-header']);

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
      throw explainPrivilegeError(err);
    }
    const to = await newestAppliedMigration(this.sequelize);
    if (steps.length > 0) {
      // Reverting the very first migration drops audit_logs itself: then the log line is the only record.
      await this.audit.record({ action: AuditActions.dbMigrate, details: { direction, from, to, steps } }, meta);
    }
    const needsResync = await this.needingResync(steps);
    if (needsResync.length > 0) {
      // The upgrade says so itself: an operator reads the log of the serve or db migrate that applied it.
      this.logger.warn(`mail synced before these migrations lacks what they add: run ${RESYNC_COMMAND}`, { migrations: needsResync, command: RESYNC_COMMAND });
    }
    return { direction, from, to, steps, needsResync };
  }

  /** Of the migrations just applied, those after which stored mail needs a resync (none on an install without mail). */
  private async needingResync(steps: MigrationStep[]): Promise<string[]> {
    const names = steps.filter((step) => step.direction === 'up' && MIGRATIONS_NEEDING_RESYNC.has(step.name)).map((step) => step.name);
    if (names.length === 0 || !(await anyStoredEmail(this.sequelize))) return [];
    return names;
  }
}

/**
 * A migration refused for want of privileges (42501) means it ran as a role that may not change the
 * schema: the service's own role, with no DATABASE_OWNER_URL given (ADR 0171). Said so, with the fix.
 */
function explainPrivilegeError(err: unknown): unknown {
  const code = (err as { parent?: { code?: string }; code?: string }).parent?.code ?? (err as { code?: string }).code;
  if (code !== '42501') return err;
  const message = err instanceof Error ? err.message : String(err);
  return new Error(`migrations need the role that owns the schema, and this one may not change it (${message}): set DATABASE_OWNER_URL (docs/operations.md, "The database role")`, {
    cause: err,
  });
}
