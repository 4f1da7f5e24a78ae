import crypto from 'node:crypto';
import fs from 'node:fs';
import { DATA_ACCESS_PRIVILEGES } from './data-access-grants.js';

/** The role the service and the commands connect as to the embedded database: rows only (ADRs 0121, 0171). */
export const APP_ROLE = 'crm_app';
/** The role that owns the embedded database and its schema: migrations and restores run as it (ADR 0171). */
export const OWNER_ROLE = 'crm_owner';
/** The extensions the migrations use: created by the superuser, since the owner role may not create every one. */
export const APP_EXTENSIONS = ['unaccent', 'pg_trgm'] as const;

/** Key of the advisory lock that lets one process at a time hand the database over. */
const HANDOVER_LOCK = 0x63726d61;

export interface SuperuserLogin {
  /** The server's socket directory, or 127.0.0.1. */
  host: string;
  port: number;
  password: string;
  /** The password file of the app role (0600, beside postgres.password). */
  appPasswordFile: string;
  /** The password file of the owner role (0600): written last, it marks a database handed over completely. */
  ownerPasswordFile: string;
}

export interface RolePasswords {
  app: string;
  owner: string;
}

/**
 * The two roles' passwords: read from their files when the database was handed over already (every
 * start after the first: no connection is made). Otherwise, as the superuser, in one transaction under
 * the lock: both roles are created (LOGIN, NOSUPERUSER, NOCREATEDB, NOCREATEROLE, NOREPLICATION), the
 * extensions the migrations need are created, the database, its public schema and every object in it
 * become the owner's, and the app role gets rows only (SELECT, INSERT, UPDATE, DELETE; sequences), also
 * on what later migrations create. A data directory of 0.3.0-0.5.x (everything `crm_app`'s) or of a
 * release before 0.3.0 (everything `postgres`'s) is handed over the same way at its first start; an
 * existing app password is kept, so processes of the old release still running go on connecting.
 */
export async function ensureRoles(login: SuperuserLogin): Promise<RolePasswords> {
  const existing = readBoth(login);
  if (existing) return existing;
  const { default: pg } = await import('pg');
  const client = new pg.Client({ host: login.host, port: login.port, user: 'postgres', password: login.password, database: 'crm', application_name: 'staff-crm-setup' });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [HANDOVER_LOCK]);
    // Another process may have handed it over while this one waited for the lock.
    const meanwhile = readBoth(login);
    if (meanwhile) return meanwhile;
    const keptApp = readPassword(login.appPasswordFile);
    const passwords = { app: keptApp ?? newPassword(), owner: newPassword() };
    await client.query('BEGIN');
    await client.query(handoverSql(client.escapeLiteral(passwords.owner), keptApp ? undefined : client.escapeLiteral(passwords.app)));
    await client.query('COMMIT');
    if (!keptApp) writePassword(login.appPasswordFile, passwords.app);
    writePassword(login.ownerPasswordFile, passwords.owner);
    return passwords;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const ROLE_ATTRIBUTES = 'LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION';

/**
 * The SQL that hands the database over; the literals are already quoted (no app password: keep it).
 * Idempotent: a second run changes nothing.
 */
function handoverSql(ownerPasswordLiteral: string, appPasswordLiteral: string | undefined): string {
  const createRole = (role: string) => `
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN
    CREATE ROLE ${role} ${ROLE_ATTRIBUTES};
  END IF;
END $$;`;
  return `
${createRole(OWNER_ROLE)}
${createRole(APP_ROLE)}
ALTER ROLE ${OWNER_ROLE} WITH ${ROLE_ATTRIBUTES} PASSWORD ${ownerPasswordLiteral};
ALTER ROLE ${APP_ROLE} WITH ${ROLE_ATTRIBUTES}${appPasswordLiteral ? ` PASSWORD ${appPasswordLiteral}` : ''};
${APP_EXTENSIONS.map((e) => `CREATE EXTENSION IF NOT EXISTS ${e};`).join('\n')}
-- Whatever the app role owned (0.3.0-0.5.x: the database and everything in it) is the owner's now.
REASSIGN OWNED BY ${APP_ROLE} TO ${OWNER_ROLE};
ALTER DATABASE crm OWNER TO ${OWNER_ROLE};
ALTER SCHEMA public OWNER TO ${OWNER_ROLE};
${OWNED_BY_SUPERUSER_SQL}
-- Nobody but the owner creates objects in the schema (PostgreSQL 15 and later revoke it already).
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
REVOKE ALL ON SCHEMA public FROM ${APP_ROLE};
GRANT CONNECT, TEMPORARY ON DATABASE crm TO ${APP_ROLE};
GRANT USAGE ON SCHEMA public TO ${APP_ROLE};
GRANT ${DATA_ACCESS_PRIVILEGES.tables} ON ALL TABLES IN SCHEMA public TO ${APP_ROLE};
GRANT ${DATA_ACCESS_PRIVILEGES.sequences} ON ALL SEQUENCES IN SCHEMA public TO ${APP_ROLE};
ALTER DEFAULT PRIVILEGES FOR ROLE ${OWNER_ROLE} IN SCHEMA public GRANT ${DATA_ACCESS_PRIVILEGES.tables} ON TABLES TO ${APP_ROLE};
ALTER DEFAULT PRIVILEGES FOR ROLE ${OWNER_ROLE} IN SCHEMA public GRANT ${DATA_ACCESS_PRIVILEGES.sequences} ON SEQUENCES TO ${APP_ROLE};`;
}

/**
 * A data directory of a release before 0.3.0 has the migrations' objects owned by `postgres`, which
 * REASSIGN cannot take from (it owns the catalogs too): they are given to the owner one by one.
 */
const OWNED_BY_SUPERUSER_SQL = `
DO $$
DECLARE r record;
BEGIN
  -- Tables, views and free-standing sequences; indexes and the sequences of a column follow their table.
  FOR r IN SELECT c.oid::regclass AS name, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S') AND c.relowner <> '${OWNER_ROLE}'::regrole
              AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('e', 'a', 'i'))
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO ${OWNER_ROLE}',
      CASE r.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'TABLE' END, r.name);
  END LOOP;
  -- Functions and procedures of the migrations (not those of an extension).
  FOR r IN SELECT p.oid::regprocedure AS name, p.prokind FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname = 'public' AND p.proowner <> '${OWNER_ROLE}'::regrole
              AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO ${OWNER_ROLE}', CASE r.prokind WHEN 'p' THEN 'PROCEDURE' WHEN 'a' THEN 'AGGREGATE' ELSE 'FUNCTION' END, r.name);
  END LOOP;
  -- Enums and domains (a table's row type follows the table).
  FOR r IN SELECT t.oid::regtype AS name FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
            WHERE n.nspname = 'public' AND t.typtype IN ('e', 'd') AND t.typowner <> '${OWNER_ROLE}'::regrole
              AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_type'::regclass AND d.objid = t.oid AND d.deptype = 'e')
  LOOP
    EXECUTE format('ALTER TYPE %s OWNER TO ${OWNER_ROLE}', r.name);
  END LOOP;
  -- Text search configurations and dictionaries of the migrations (Slovak search), not an extension's.
  FOR r IN SELECT 'CONFIGURATION' AS kind, c.oid::regconfig::text AS name, 'pg_ts_config'::regclass AS catalog, c.oid FROM pg_ts_config c
             JOIN pg_namespace n ON n.oid = c.cfgnamespace WHERE n.nspname = 'public' AND c.cfgowner <> '${OWNER_ROLE}'::regrole
           UNION ALL
           SELECT 'DICTIONARY', d.oid::regdictionary::text, 'pg_ts_dict'::regclass, d.oid FROM pg_ts_dict d
             JOIN pg_namespace n ON n.oid = d.dictnamespace WHERE n.nspname = 'public' AND d.dictowner <> '${OWNER_ROLE}'::regrole
  LOOP
    CONTINUE WHEN EXISTS (SELECT 1 FROM pg_depend x WHERE x.classid = r.catalog AND x.objid = r.oid AND x.deptype = 'e');
    EXECUTE format('ALTER TEXT SEARCH %s %s OWNER TO ${OWNER_ROLE}', r.kind, r.name);
  END LOOP;
END $$;`;

function newPassword(): string {
  return crypto.randomBytes(24).toString('base64url');
}

function readBoth(login: SuperuserLogin): RolePasswords | undefined {
  const owner = readPassword(login.ownerPasswordFile);
  const app = owner ? readPassword(login.appPasswordFile) : undefined;
  return owner && app ? { app, owner } : undefined;
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
