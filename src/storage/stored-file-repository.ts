import type { Sql } from '../db/sql.js';
import type { StoredFileKind } from './stored-files.js';

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** The database's side of stored files: which keys rows still reference. */
export class StoredFileRepository {
  constructor(private readonly sql: Sql) {}

  /** Of `keys`, those a row of `kind.table` references (one indexed lookup per batch). */
  async referenced(kind: StoredFileKind, keys: string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const { table, column } = checked(kind);
    const rows = await this.sql.select<{ key: string }>(`SELECT DISTINCT "${column}" AS key FROM "${table}" WHERE "${column}" = ANY($keys::text[])`, { keys });
    return new Set(rows.map((r) => r.key));
  }
}

function checked(kind: StoredFileKind): StoredFileKind {
  if (!IDENTIFIER.test(kind.table) || !IDENTIFIER.test(kind.column)) throw new Error(`invalid stored file kind ${kind.table}.${kind.column}`);
  return kind;
}
