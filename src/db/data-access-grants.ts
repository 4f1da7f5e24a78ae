import { QueryTypes, type Sequelize } from 'sequelize';

/**
 * What the service's role may do (ADR 0171): read and write rows, and use the sequences behind them.
 * Not TRUNCATE, REFERENCES or TRIGGER, nor CREATE on the schema: tables, functions, triggers and
 * extensions are the owner's, changed by migrations and restores only.
 */
export const DATA_ACCESS_PRIVILEGES = {
  tables: 'SELECT, INSERT, UPDATE, DELETE',
  sequences: 'USAGE, SELECT, UPDATE',
} as const;

/**
 * Run on a connection as the schema's owner before it migrates or restores (DATABASE_OWNER_URL, or the
 * embedded `crm_owner`): the service's role gets rows on every table and sequence there is, and on
 * every one this owner creates later (default privileges), so a migration's new table is usable by the
 * running service without another step. Nothing happens when the owner is the service's role itself
 * (one role, as before 0.6.0). Idempotent; a few catalog writes.
 */
export async function grantDataAccess(owner: Sequelize, serviceRole: string): Promise<boolean> {
  const [me] = await owner.query<{ role: string }>('SELECT current_user AS role', { type: QueryTypes.SELECT });
  if (me.role === serviceRole) return false;
  const role = quoteRole(serviceRole);
  await owner.query(
    [
      `GRANT USAGE ON SCHEMA public TO ${role}`,
      `GRANT ${DATA_ACCESS_PRIVILEGES.tables} ON ALL TABLES IN SCHEMA public TO ${role}`,
      `GRANT ${DATA_ACCESS_PRIVILEGES.sequences} ON ALL SEQUENCES IN SCHEMA public TO ${role}`,
      `ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ${DATA_ACCESS_PRIVILEGES.tables} ON TABLES TO ${role}`,
      `ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ${DATA_ACCESS_PRIVILEGES.sequences} ON SEQUENCES TO ${role}`,
    ].join(';\n'),
  );
  return true;
}

/** A role name as an identifier (it comes from a URL the operator wrote). */
function quoteRole(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
