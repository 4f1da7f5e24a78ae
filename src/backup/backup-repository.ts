import type { Readable, Writable } from 'node:stream';
import type PgCopyStreams from 'pg-copy-streams';
import { lazyRequire } from '../shared/lazy-require.js';
import type { Client } from 'pg';
import type { Sequelize } from 'sequelize';
import { withoutQueryTimeout } from '../db/connection-settings.js';
import { quoteIdent } from '../db/sql.js';
import type { ForeignKeyEdge } from './table-order.js';
import type { StoredFileKind } from '../storage/stored-files.js';
import type { SealedHashKey } from '../privacy/hash-key-repository.js';

/** Loaded on first use (ADR 0113): a command that never needs it does not pay for loading it. */
const copyStreams = lazyRequire<typeof PgCopyStreams>('pg-copy-streams');

export interface CatalogTable {
  name: string;
  /** Stored columns in attribute order (generated columns are computed again on restore, never copied). */
  columns: string[];
}

/** Told of each migration a restore applies or reverts, when it is done. */
export type MigrationStepListener = (step: { name: string; direction: 'up' | 'down'; durationMs: number }) => void;

export interface Catalog {
  tables: CatalogTable[];
  edges: ForeignKeyEdge[];
}

const MIGRATIONS_TABLE = 'schema_migrations';

const COLUMNS_SQL = `
  SELECT c.relname AS table, a.attname AS column
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
   WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
   ORDER BY c.relname, a.attnum`;

const FOREIGN_KEYS_SQL = `
  SELECT c.relname AS child, p.relname AS parent
    FROM pg_constraint k
    JOIN pg_class c ON c.oid = k.conrelid
    JOIN pg_class p ON p.oid = k.confrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE k.contype = 'f' AND n.nspname = 'public'`;

/** Sequences owned by a column (serial, bigserial, identity) of a public table. */
const OWNED_SEQUENCES_SQL = `
  SELECT s.relname AS sequence, t.relname AS table, a.attname AS column
    FROM pg_class s
    JOIN pg_depend d ON d.objid = s.oid AND d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
    JOIN pg_class t ON t.oid = d.refobjid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = d.refobjsubid
   WHERE s.relkind = 'S' AND n.nspname = 'public'`;

const columnList = (columns: string[]) => columns.map(quoteIdent).join(', ');

/**
 * Data access of backup and restore. COPY needs a plain pg client (pg-copy-streams), so this
 * repository borrows one connection from Sequelize's pool and speaks SQL on it directly; every
 * identifier comes from the catalog (or an archive checked against the catalog) and is quoted.
 */
export class BackupRepository {
  constructor(private readonly sequelize: Sequelize) {}

  /** Runs work on one connection in a transaction: COMMIT when it resolves, ROLLBACK when it throws. */
  inTransaction<T>(mode: 'snapshot' | 'write', work: (session: DbSession) => Promise<T>): Promise<T> {
    // A large table's COPY may rightly take longer than the client-side query timeout as well.
    return withoutQueryTimeout(() => this.inTransactionUnbounded(mode, work));
  }

  private async inTransactionUnbounded<T>(mode: 'snapshot' | 'write', work: (session: DbSession) => Promise<T>): Promise<T> {
    const manager = this.sequelize.connectionManager;
    const client = (await manager.getConnection({ type: 'write' })) as Client;
    try {
      await client.query(mode === 'snapshot' ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
      // The pool's 30 s statement timeout protects requests; a large table's COPY may need longer.
      await client.query("SET LOCAL statement_timeout = 0; SET LOCAL idle_in_transaction_session_timeout = '10min'");
      const result = await work(new DbSession(client));
      await client.query('COMMIT');
      manager.releaseConnection(client);
      return result;
    } catch (err) {
      // The connection may be stuck mid-COPY: close it, and the server rolls the transaction back.
      await manager.destroyConnection(client).catch(() => undefined);
      throw err;
    }
  }

  /** The migrations this program ships, in order. */
  async knownMigrations(): Promise<string[]> {
    // umzug loads for backups and restores only, not with every service a crm-admin command builds.
    const { createMigrator } = await import('../db/migrator.js');
    return (await createMigrator(this.sequelize).migrations(this.sequelize.getQueryInterface())).map((m) => m.name);
  }

  /**
   * Brings the schema to exactly `target` (the archive's migrations): reverts what is beyond it, applies
   * what is missing. `target` undefined: every migration this program ships (after the load).
   */
  async migrateTo(applied: string[], target: string[] | undefined, onStep: MigrationStepListener): Promise<{ reverted: string[]; applied: string[] }> {
    const { createMigrator } = await import('../db/migrator.js');
    const migrator = createMigrator(this.sequelize);
    const started = new Map<string, number>();
    const begin = ({ name }: { name: string }) => void started.set(name, Date.now());
    const end =
      (direction: 'up' | 'down') =>
      ({ name }: { name: string }) =>
        onStep({ name, direction, durationMs: Date.now() - (started.get(name) ?? Date.now()) });
    migrator.on('migrating', begin);
    migrator.on('reverting', begin);
    migrator.on('migrated', end('up'));
    migrator.on('reverted', end('down'));
    if (target === undefined) return { reverted: [], applied: (await migrator.up()).map((m) => m.name) };
    const firstExtra = applied.find((name) => !target.includes(name));
    const reverted = firstExtra ? (await migrator.down({ to: firstExtra })).map((m) => m.name) : [];
    const missing = target.filter((name) => !applied.includes(name) || reverted.includes(name));
    const done = missing.length > 0 ? (await migrator.up({ to: target[target.length - 1] })).map((m) => m.name) : [];
    return { reverted, applied: done };
  }

  /** Catalog and migration state outside any transaction (the restore target before anything changes). */
  async inspect(): Promise<{ catalog: Catalog; migrations: string[]; rowCounts: Record<string, number> }> {
    return this.inTransaction('snapshot', async (s) => {
      const catalog = await s.catalog();
      const rowCounts: Record<string, number> = {};
      for (const t of catalog.tables) if (t.name !== MIGRATIONS_TABLE) rowCounts[t.name] = await s.rowCount(t.name);
      return { catalog, migrations: await s.appliedMigrations(), rowCounts };
    });
  }
}

/** What backup and restore do on their one connection. */
export class DbSession {
  constructor(private readonly client: Client) {}

  async catalog(): Promise<Catalog> {
    const columns = (await this.client.query<{ table: string; column: string }>(COLUMNS_SQL)).rows;
    const tables = new Map<string, string[]>();
    for (const { table, column } of columns) tables.set(table, [...(tables.get(table) ?? []), column]);
    const edges = (await this.client.query<ForeignKeyEdge>(FOREIGN_KEYS_SQL)).rows;
    return { tables: [...tables].map(([name, cols]) => ({ name, columns: cols })), edges };
  }

  async appliedMigrations(): Promise<string[]> {
    const exists = await this.client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [`public.${MIGRATIONS_TABLE}`]);
    if (!exists.rows[0]?.t) return [];
    return (await this.client.query<{ name: string }>(`SELECT name FROM ${quoteIdent(MIGRATIONS_TABLE)} ORDER BY name`)).rows.map((r) => r.name);
  }

  async serverVersion(): Promise<string> {
    return (await this.client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0].v;
  }

  async rowCount(table: string): Promise<number> {
    return Number((await this.client.query<{ n: string }>(`SELECT count(*) AS n FROM ${quoteIdent(table)}`)).rows[0].n);
  }

  /** The storage keys of one kind of stored file the snapshot's rows reference (src/storage/stored-files.ts). */
  async storedKeys(kind: StoredFileKind): Promise<string[]> {
    const sql = `SELECT DISTINCT ${quoteIdent(kind.column)} AS key FROM ${quoteIdent(kind.table)} ORDER BY 1`;
    return (await this.client.query<{ key: string }>(sql)).rows.map((r) => r.key);
  }

  /** The sealed hash keys of erasures made elsewhere (privacy_hash_keys, migration 0076), as of the snapshot. */
  async sealedHashKeys(): Promise<SealedHashKey[]> {
    return (await this.client.query<SealedHashKey>('SELECT id, sealed FROM privacy_hash_keys ORDER BY created_at, id')).rows;
  }

  copyOut(table: string, columns: string[]): Readable {
    return this.client.query(copyStreams().to(`COPY ${quoteIdent(table)} (${columnList(columns)}) TO STDOUT`));
  }

  copyIn(table: string, columns: string[]): Writable & { rowCount: number } {
    return this.client.query(copyStreams().from(`COPY ${quoteIdent(table)} (${columnList(columns)}) FROM STDIN`));
  }

  /**
   * Switches the tables' own triggers off (or on again) for this transaction's load. The archive holds
   * what they derive already (an account's owner membership row, the copies kept on email links,
   * session notifications): firing them while rows are copied in would add those rows a second time.
   * Foreign-key checks are system triggers and stay on. Needs the tables' owner, who ran the migrations.
   */
  async setUserTriggers(tables: string[], enabled: boolean): Promise<void> {
    for (const table of tables) await this.client.query(`ALTER TABLE ${quoteIdent(table)} ${enabled ? 'ENABLE' : 'DISABLE'} TRIGGER USER`);
  }

  /** Keeps hash keys of another installation's erasures (privacy_hash_keys, migration 0076), sealed by the caller. */
  async storeHashKeys(rows: Array<{ id: string; sealed: string }>): Promise<void> {
    if (rows.length === 0) return;
    await this.client.query('INSERT INTO privacy_hash_keys (id, sealed) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT (id) DO UPDATE SET sealed = EXCLUDED.sealed', [
      rows.map((r) => r.id),
      rows.map((r) => r.sealed),
    ]);
  }

  async truncate(tables: string[]): Promise<void> {
    if (tables.length > 0) await this.client.query(`TRUNCATE ${tables.map(quoteIdent).join(', ')} CASCADE`);
  }

  /** Moves every owned sequence of the given tables past the highest restored value; answers how many. */
  async fixSequences(tables: string[]): Promise<number> {
    const owned = (await this.client.query<{ sequence: string; table: string; column: string }>(OWNED_SEQUENCES_SQL)).rows.filter((r) => tables.includes(r.table));
    for (const { sequence, table, column } of owned) {
      await this.client.query(`SELECT setval($1::regclass, COALESCE((SELECT max(${quoteIdent(column)}) FROM ${quoteIdent(table)}), 0) + 1, false)`, [quoteIdent(sequence)]);
    }
    return owned.length;
  }
}
