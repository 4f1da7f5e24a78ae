import type { QueryInterface } from 'sequelize';
import { quoteIdent } from './sql.js';

/**
 * Runs a migration's statements in one transaction, `statements` given the search_path every function
 * of the schema pins (the schema's own, then pg_temp: test/db/schema.test.ts), so that a trigger or a
 * query calling the function resolves the same names whoever's search_path it runs under.
 */
export async function withPinnedSearchPath(qi: QueryInterface, statements: (path: string) => string): Promise<void> {
  await qi.sequelize.transaction(async (transaction) => {
    const [rows] = await qi.sequelize.query('SELECT current_schema() AS schema', { transaction });
    const path = `${quoteIdent((rows as Array<{ schema: string }>)[0].schema)}, pg_temp`;
    await qi.sequelize.query(statements(path), { transaction });
  });
}
