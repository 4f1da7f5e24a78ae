import type { QueryInterface, Sequelize } from 'sequelize';
import { SequelizeStorage, Umzug } from 'umzug';
import { withoutQueryTimeout } from './connection-settings.js';
import { migrationsDir } from './migration-check.js';

export type MigrationContext = QueryInterface;

/** One migration applied or reverted, and how long it took (logged and audited, see schema-changes.ts). */
export interface MigrationStep {
  name: string;
  direction: 'up' | 'down';
  durationMs: number;
}

export interface MigratorOptions {
  /** Called after each migration that completed. */
  onStep?: (step: MigrationStep) => void;
}

/** Migrations: the files of migrations/ (see migration-check.ts), recorded without their extension. */
export function createMigrator(sequelize: Sequelize, options: MigratorOptions = {}): Umzug<MigrationContext> {
  const timed = async (name: string, direction: MigrationStep['direction'], work: () => Promise<void>) => {
    const started = performance.now();
    await work();
    options.onStep?.({ name, direction, durationMs: Math.round(performance.now() - started) });
  };
  return new Umzug<MigrationContext>({
    migrations: {
      glob: ['*.{js,ts}', { cwd: migrationsDir, ignore: ['*.d.ts', '*.map'] }],
      resolve: ({ name, path: filePath, context }) => {
        const bareName = name.replace(/\.(js|ts)$/, '');
        const load = async () => import(filePath!) as Promise<{ up: Fn; down: Fn }>;
        return {
          name: bareName,
          up: async () => timed(bareName, 'up', async () => (await load()).up(context)),
          down: async () => timed(bareName, 'down', async () => (await load()).down(context)),
        };
      },
    },
    context: sequelize.getQueryInterface(),
    storage: new SequelizeStorage({ sequelize, tableName: 'schema_migrations' }),
    logger: undefined,
  });
}

type Fn = (qi: QueryInterface) => Promise<void>;

/** Serialises concurrent `migrate` calls (two instances starting together) with an advisory lock. */
export async function migrateUp(sequelize: Sequelize, options: MigratorOptions = {}): Promise<string[]> {
  return withMigrationLock(sequelize, async () => (await createMigrator(sequelize, options).up()).map((m) => m.name));
}

/** Undoes the most recent migration, under the same lock as migrateUp. */
export async function migrateDownOne(sequelize: Sequelize, options: MigratorOptions = {}): Promise<string[]> {
  return withMigrationLock(sequelize, async () => (await createMigrator(sequelize, options).down()).map((m) => m.name));
}

export async function pendingMigrations(sequelize: Sequelize): Promise<string[]> {
  return (await createMigrator(sequelize).pending()).map((m) => m.name);
}

async function withMigrationLock<T>(sequelize: Sequelize, work: () => Promise<T>): Promise<T> {
  const LOCK_KEY = 7_277_001;
  // A migration may rightly run for minutes, and so may the wait for another instance's: no client-side
  // query timeout under them (keep-alive still finds a vanished host).
  return withoutQueryTimeout(() =>
    sequelize.transaction(async (t) => {
      // The lock's transaction waits idle while each migration runs in its own: a migration longer than
      // the pool's idle-in-transaction limit (60 s; 0030's backfill takes minutes at a million emails)
      // must not get this session terminated under it.
      await sequelize.query('SET LOCAL idle_in_transaction_session_timeout = 0', { transaction: t });
      await sequelize.query('SELECT pg_advisory_xact_lock(:key)', { replacements: { key: LOCK_KEY }, transaction: t });
      return work();
    }),
  );
}
