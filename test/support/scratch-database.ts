import crypto from 'node:crypto';
import { Sequelize } from 'sequelize';
import { requireDatabaseUrl } from './test-env.js';
import { templateDatabase } from './worker-environment.js';

export interface ScratchDatabase {
  /** A connection to the new database. */
  db: Sequelize;
  url: string;
  /** Closes the connection and drops the database (also with connections still open). */
  drop(): Promise<void>;
}

/**
 * A database of its own on the suite's PostgreSQL server: for migrations up and down, schema repairs
 * and anything that is a property of a whole database, without disturbing the shared one.
 */
export async function scratchDatabase(prefix: string, options: { migrated?: boolean } = {}): Promise<ScratchDatabase> {
  const name = `${prefix}_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new Sequelize(requireDatabaseUrl(), { logging: false });
  // Empty by default (migrations up and down); `migrated`: a clone of the run's migrated template.
  await admin.query(`CREATE DATABASE ${name}${options.migrated ? ` TEMPLATE ${templateDatabase()}` : ''}`);
  const url = new URL(requireDatabaseUrl());
  url.pathname = `/${name}`;
  const db = new Sequelize(url.toString(), { logging: false });
  return {
    db,
    url: url.toString(),
    async drop() {
      await db.close().catch(() => undefined);
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await admin.close();
    },
  };
}
