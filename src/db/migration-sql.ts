import type { QueryInterface } from 'sequelize';
import { quoteIdent } from './sql.js';

/**
 * Runs a migration's statements in one transaction, `statements` given the search_path every function
 * of the schema pins (the schema's own, then pg_temp: test/db/schema.test.ts), so that a trigger or a
 * query calling the function resolves the same names whoever's search_path it runs under. Without the
 * sessions' statement timeout (DATABASE_STATEMENT_TIMEOUT_MS, 12 s): a statement of a migration may
 * rightly run for minutes on a large installation (0083 rewrites every contact), as the migrator
 * already lets its queries run without the client's timeout.
 */
export async function withPinnedSearchPath(qi: QueryInterface, statements: (path: string) => string): Promise<void> {
  await qi.sequelize.transaction(async (transaction) => {
    await qi.sequelize.query('SET LOCAL statement_timeout = 0', { transaction });
    const [rows] = await qi.sequelize.query('SELECT current_schema() AS schema', { transaction });
    const path = `${quoteIdent((rows as Array<{ schema: string }>)[0].schema)}, pg_temp`;
    await qi.sequelize.query(statements(path), { transaction });
  });
}

/** Statements that create functions, as statements that replace them (a later migration redefining an earlier one's). */
export const replaceable = (sql: string): string => sql.replaceAll('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION');

/**
 * `text` (an earlier migration's SQL) with `from` replaced by `to`, refusing unless `from` occurs
 * exactly once: a migration derived from another's text fails loudly if that text is not what it expects.
 */
export function replacedOnce(text: string, from: string, to: string, migration: string): string {
  if (text.split(from).length !== 2) throw new Error(`migration ${migration}: expected exactly one "${from.slice(0, 60)}" in the text it changes`);
  return text.replace(from, to);
}
