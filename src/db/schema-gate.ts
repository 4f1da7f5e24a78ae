import type { Sequelize } from 'sequelize';
import { ServiceUnavailableError } from '../errors/app-errors.js';
import { migrationStatus, schemaIsCurrent } from './migration-check.js';

/**
 * Only `serve` and `db migrate` change the schema. Every other crm-admin command meets a database with
 * pending migrations here and stops before it reads or writes anything: it was installed with a newer
 * release than the database has been migrated to, and guessing either way could damage data.
 */
export async function requireCurrentSchema(sequelize: Sequelize): Promise<void> {
  if (await schemaIsCurrent(sequelize)) return;
  // Read with SELECTs only: umzug's storage would create its table, which the service's role may not (ADR 0171).
  const { pending } = await migrationStatus(sequelize);
  if (pending.length === 0) return;
  throw new ServiceUnavailableError(
    `Schéma databázy nie je aktuálna: čaká ${pending.length} migrácia(í) (${pending.join(', ')}). ` +
      'Spustite najprv `crm-admin db migrate` (alebo službu `crm-admin serve`); tento príkaz nič nezmenil.',
  );
}
