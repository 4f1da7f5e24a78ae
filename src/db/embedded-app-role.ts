import crypto from 'node:crypto';
import fs from 'node:fs';

/** The role the service and the commands connect as to the embedded database (ADR 0121). */
export const APP_ROLE = 'crm_app';
/** The extensions the migrations use: created by the superuser, since the app role may not. */
export const APP_EXTENSIONS = ['unaccent', 'pg_trgm'] as const;

/** Key of the advisory lock that lets one process at a time hand the database over. */
const HANDOVER_LOCK = 0x63726d61;

export interface SuperuserLogin {
  port: number;
  password: string;
  /** The password file of the app role (0600, beside postgres.password). */
  appPasswordFile: string;
}

/**
 * The app role's password: read from its file when the database was handed over already (every start
 * after the first: no connection is made). Otherwise, as the superuser: the role is created (LOGIN,
 * NOSUPERUSER, NOCREATEDB, NOCREATEROLE, NOREPLICATION), the extensions the migrations need are created,
 * and the database, its public schema and every object in it become the role's (an embedded data
 * directory from a release before 0.3.0 had everything owned by `postgres`). The password file is
 * written last, under the lock, so it exists only for a database that was handed over completely.
 */
export async function ensureAppRole(login: SuperuserLogin): Promise<string> {
  const existing = readPassword(login.appPasswordFile);
  if (existing) return existing;
  const { default: pg } = await import('pg');
  const client = new pg.Client({ host: '127.0.0.1', port: login.port, user: 'postgres', password: login.password, database: 'crm', application_name: 'staff-crm-setup' });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [HANDOVER_LOCK]);
    // Another process may have handed it over while this one waited for the lock.
    const meanwhile = readPassword(login.appPasswordFile);
    if (meanwhile) return meanwhile;
    const password = crypto.randomBytes(24).toString('base64url');
    await client.query('BEGIN');
    await client.query(handoverSql(client.escapeLiteral(password)));
    await client.query('COMMIT');
    writePassword(login.appPasswordFile, password);
    return password;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The SQL that hands the database over; `passwordLiteral` is already quoted. Idempotent. */
function handoverSql(passwordLiteral: string): string {
  return `
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${APP_ROLE}') THEN
    CREATE ROLE ${APP_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION;
  END IF;
END $$;
ALTER ROLE ${APP_ROLE} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION PASSWORD ${passwordLiteral};
${APP_EXTENSIONS.map((e) => `CREATE EXTENSION IF NOT EXISTS ${e};`).join('\n')}
ALTER DATABASE crm OWNER TO ${APP_ROLE};
ALTER SCHEMA public OWNER TO ${APP_ROLE};
DO $$
DECLARE r record;
BEGIN
  -- Tables, views and free-standing sequences; indexes and the sequences of a column follow their table.
  FOR r IN SELECT c.oid::regclass AS name, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S') AND c.relowner <> '${APP_ROLE}'::regrole
              AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('e', 'a', 'i'))
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO ${APP_ROLE}',
      CASE r.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'TABLE' END, r.name);
  END LOOP;
  -- Functions and procedures of the migrations (not those of an extension).
  FOR r IN SELECT p.oid::regprocedure AS name, p.prokind FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname = 'public' AND p.proowner <> '${APP_ROLE}'::regrole
              AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO ${APP_ROLE}', CASE r.prokind WHEN 'p' THEN 'PROCEDURE' WHEN 'a' THEN 'AGGREGATE' ELSE 'FUNCTION' END, r.name);
  END LOOP;
  -- Enums and domains (a table's row type follows the table).
  FOR r IN SELECT t.oid::regtype AS name FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
            WHERE n.nspname = 'public' AND t.typtype IN ('e', 'd') AND t.typowner <> '${APP_ROLE}'::regrole
              AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_type'::regclass AND d.objid = t.oid AND d.deptype = 'e')
  LOOP
    EXECUTE format('ALTER TYPE %s OWNER TO ${APP_ROLE}', r.name);
  END LOOP;
END $$;`;
}

function readPassword(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8').trim() || undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Written beside, then renamed: a reader never sees half a password. Mode 0600 from the start. */
function writePassword(file: string, password: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  fs.rmSync(temp, { force: true });
  const fd = fs.openSync(temp, 'wx', 0o600);
  try {
    fs.fchmodSync(fd, 0o600);
    fs.writeFileSync(fd, password);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, file);
}
