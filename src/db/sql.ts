import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';

/** An SQL identifier quoted (for names that cannot travel as bind parameters: tables, schemas). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Named bind parameters (`$name` in the SQL text), the one bind style of every repository. */
export type Bind = Record<string, unknown>;

/**
 * Plain SQL for the repositories: values always travel as bind parameters (never spliced into the
 * text). Bind values must not be undefined (Sequelize throws): use null. The optional transaction is
 * always the last argument, as in every repository method.
 */
export class Sql {
  constructor(readonly sequelize: Sequelize) {}

  select<T extends object>(sql: string, bind: Bind = {}, tx?: Transaction): Promise<T[]> {
    return this.sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT, transaction: tx });
  }

  async one<T extends object>(sql: string, bind: Bind = {}, tx?: Transaction): Promise<T | undefined> {
    const [row] = await this.select<T>(sql, bind, tx);
    return row;
  }

  /** Runs a statement and answers how many rows it touched. */
  async execute(sql: string, bind: Bind = {}, tx?: Transaction): Promise<number> {
    const [, result] = (await this.sequelize.query(sql, { bind, transaction: tx, type: QueryTypes.RAW })) as [unknown, { rowCount?: number } | undefined];
    return result?.rowCount ?? 0;
  }
}
