import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';

/**
 * Plain SQL with positional bind parameters ($1, $2 ... passed to pg as values, never spliced into
 * the text): the sync's bulk statements (unnest, jsonb_to_recordset, ON CONFLICT) are clearer in SQL
 * than through model methods. Bind values must not be undefined (Sequelize throws): use null.
 */
export function selectRows<T>(sequelize: Sequelize, sql: string, bind: unknown[], transaction?: Transaction): Promise<T[]> {
  return sequelize.query(sql, { bind, transaction, type: QueryTypes.SELECT }) as Promise<T[]>;
}

/** Runs a statement and answers how many rows it touched. */
export async function execute(sequelize: Sequelize, sql: string, bind: unknown[], transaction?: Transaction): Promise<number> {
  const [, result] = (await sequelize.query(sql, { bind, transaction, type: QueryTypes.RAW })) as [unknown, { rowCount?: number } | undefined];
  return result?.rowCount ?? 0;
}
