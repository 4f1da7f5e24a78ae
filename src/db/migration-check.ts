import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { QueryTypes, type Sequelize } from 'sequelize';

/**
 * Migrations live in the top-level migrations/ folder; under tsx that is the .ts sources, in a build
 * the compiled .js files. Names are recorded without the extension so both runs agree on what ran.
 */
export const migrationsDir = fileURLToPath(new URL('../../migrations/', import.meta.url));

/** The migrations on disk, named as the migrator records them (the files its glob picks, no extension). */
function migrationNames(): string[] {
  return fs
    .readdirSync(migrationsDir)
    .filter((file) => /\.(js|ts)$/.test(file) && !file.endsWith('.d.ts'))
    .map((file) => file.replace(/\.(js|ts)$/, ''));
}

/**
 * True when every migration on disk is recorded as applied: one query and a directory listing, so that
 * a crm-admin command on an up-to-date database does not load umzug and its command-line toolkit
 * (a fifth of a command's start) only to learn there is nothing to do. Any doubt (no table yet, an
 * unreadable folder) answers false and the migrator decides.
 */
export async function schemaIsCurrent(sequelize: Sequelize): Promise<boolean> {
  try {
    const rows = await sequelize.query<{ name: string }>('SELECT name FROM schema_migrations', { type: QueryTypes.SELECT });
    const applied = new Set(rows.map((row) => row.name));
    return migrationNames().every((name) => applied.has(name));
  } catch {
    return false;
  }
}

/** The newest applied migration's name (the schema version readiness reports); null before the first. */
export async function newestAppliedMigration(sequelize: Sequelize): Promise<string | null> {
  try {
    const rows = await sequelize.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name DESC LIMIT 1', { type: QueryTypes.SELECT });
    return rows[0]?.name ?? null;
  } catch {
    return null;
  }
}

/**
 * What `crm-admin doctor` reports: migrations on disk not yet applied, and applied ones this release
 * does not know (the database was migrated by a newer release). Throws when the table cannot be read.
 */
export async function migrationStatus(sequelize: Sequelize): Promise<{ applied: number; pending: string[]; unknown: string[] }> {
  const exists = await sequelize.query<{ found: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS found", { type: QueryTypes.SELECT });
  const rows = exists[0]?.found ? await sequelize.query<{ name: string }>('SELECT name FROM schema_migrations', { type: QueryTypes.SELECT }) : [];
  const applied = new Set(rows.map((row) => row.name));
  const onDisk = migrationNames();
  const known = new Set(onDisk);
  return { applied: applied.size, pending: onDisk.filter((name) => !applied.has(name)).sort(), unknown: [...applied].filter((name) => !known.has(name)).sort() };
}

/** Whether any email is stored (a migration that needs mail read again matters only then); false before the table exists. */
export async function anyStoredEmail(sequelize: Sequelize): Promise<boolean> {
  try {
    const rows = await sequelize.query<{ any: boolean }>('SELECT EXISTS (SELECT 1 FROM emails) AS any', { type: QueryTypes.SELECT });
    return rows[0]?.any === true;
  } catch {
    return false;
  }
}
