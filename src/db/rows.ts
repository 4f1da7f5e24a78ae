import type { SchemaTables } from './schema-rows.js';

/** A table of the migrated schema (src/db/schema-rows.ts, generated from docs/schema.sql). */
export type TableName = keyof SchemaTables;

/** A column of `T`. */
export type ColumnOf<T extends TableName> = keyof SchemaTables[T] & string;

/**
 * The row a raw query returns for columns `C` of table `T`, typed from the schema: a column that a
 * migration renames or drops stops being a key here, and every row type naming it fails
 * `npm run typecheck`. `N` narrows some of them where the schema cannot say more (a text column
 * holding one of a few values, a jsonb document's shape); it must stay assignable to the column's type.
 */
export type TableRow<T extends TableName, C extends ColumnOf<T>, N extends { [K in C]?: SchemaTables[T][K] } = object> = Omit<Pick<SchemaTables[T], C>, keyof N> & N;

/** One column's type as a raw query returns it: for a value a query computes from it or a row of another table. */
export type ColumnType<T extends TableName, C extends ColumnOf<T>> = SchemaTables[T][C];

/**
 * The select list of `columns` (optionally qualified by a table alias), from the same tuple the row
 * type is picked with, so the SQL and its type name the same columns:
 *   const COLUMNS = ['id', 'name'] as const satisfies readonly ColumnOf<'contacts'>[];
 *   type ContactRow = TableRow<'contacts', (typeof COLUMNS)[number]>;
 *   sql.select<ContactRow>(`SELECT ${selectList(COLUMNS, 'c')} FROM contacts c ...`)
 */
export function selectList(columns: readonly string[], alias?: string): string {
  return columns.map((column) => (alias ? `${alias}.${column}` : column)).join(', ');
}

/** The columns of a table on the outer side of a LEFT JOIN: each may come back NULL. */
export type OuterJoined<R> = { [K in keyof R]: R[K] | null };

/** A select list's keys mapped to the columns of one table they read (`{ ownerId: 'user_id' }`). */
export type ColumnMap<T extends TableName> = Record<string, ColumnOf<T>>;

/** The row of an aliased select list: each key with its column's type. */
export type AliasedRow<T extends TableName, M extends ColumnMap<T>> = { -readonly [K in keyof M]: SchemaTables[T][M[K]] };

/**
 * `alias.column AS "key"` for each entry of `map`, checked against the table's columns: for rows read
 * straight into camelCase records. The row type is AliasedRow<T, typeof map>.
 */
export function aliasedList<T extends TableName>(_table: T, map: ColumnMap<T>, alias?: string): string {
  return Object.entries(map)
    .map(([key, column]) => `${alias ? `${alias}.` : ''}${column}${key === column ? '' : ` AS "${key}"`}`)
    .join(', ');
}
