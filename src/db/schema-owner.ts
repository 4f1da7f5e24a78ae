import { QueryTypes, type Sequelize } from 'sequelize';
import { connectionSettingsOf } from './connection-settings.js';
import { grantDataAccess } from './data-access-grants.js';
import { createSequelize, type Database } from './database.js';

/**
 * Runs a schema change (migrations, a restore) as the role that owns the schema (ADR 0171), after
 * giving the service's role rows on every table there is and on every one the change creates:
 * - one role does both (an external database without DATABASE_OWNER_URL): on the open connection;
 * - the database was opened as the owner (`db migrate`, `db restore`): on it;
 * - otherwise (serve, a command that migrates at start): on a short-lived connection of the owner's,
 *   closed afterwards, with the same timeouts as the pool.
 */
export async function withSchemaOwner<T>(db: Database, work: (owner: Sequelize) => Promise<T>): Promise<T> {
  if (db.serviceRole) {
    await grantDataAccess(db.sequelize, db.serviceRole);
    return work(db.sequelize);
  }
  if (!db.ownerUrl) return work(db.sequelize);
  const [service] = await db.sequelize.query<{ role: string }>('SELECT current_user AS role', { type: QueryTypes.SELECT });
  // Two connections: the migration lock's transaction, and each migration's own.
  const owner = createSequelize(db.ownerUrl, 3, db.embedded ? `${db.embedded.majorVersion}.0.0` : undefined, connectionSettingsOf(db.sequelize), { models: false });
  try {
    await grantDataAccess(owner, service.role);
    return await work(owner);
  } finally {
    await owner.close();
  }
}
