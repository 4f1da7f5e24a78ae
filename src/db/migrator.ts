import type { QueryInterface, Sequelize } from 'sequelize';
import { SequelizeStorage, Umzug } from 'umzug';
import { migrationsDir } from './migration-check.js';

export type MigrationContext = QueryInterface;

/** Migrations: the files of migrations/ (see migration-check.ts), recorded without their extension. */
export function createMigrator(sequelize: Sequelize): Umzug<MigrationContext> {
  return new Umzug<MigrationContext>({
    migrations: {
      glob: ['*.{js,ts}', { cwd: migrationsDir, ignore: ['*.d.ts', '*.map'] }],
      resolve: ({ name, path: filePath, context }) => {
        const bareName = name.replace(/\.(js|ts)$/, '');
        const load = async () => import(filePath!) as Promise<{ up: Fn; down: Fn }>;
        return {
          name: bareName,
          up: async () => (await load()).up(context),
          down: async () => (await load()).down(context),
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
export async function migrateUp(sequelize: Sequelize): Promise<string[]> {
  return withMigrationLock(sequelize, async () => (await createMigrator(sequelize).up()).map((m) => m.name));
}

export async function pendingMigrations(sequelize: Sequelize): Promise<string[]> {
  return (await createMigrator(sequelize).pending()).map((m) => m.name);
}

async function withMigrationLock<T>(sequelize: Sequelize, work: () => Promise<T>): Promise<T> {
  const LOCK_KEY = 7_277_001;
  return sequelize.transaction(async (t) => {
    await sequelize.query('SELECT pg_advisory_xact_lock(:key)', { replacements: { key: LOCK_KEY }, transaction: t });
    return work();
  });
}
