import fs from 'node:fs';
import { QueryTypes, type Sequelize } from 'sequelize';

/**
 * A fingerprint of everything a request could change for the given users: every row of theirs in
 * every table (a hash of the whole row, so an UPDATE shows too), the users table as a whole, and the
 * number of successful audit records. Rejected requests may add failed-attempt audit records and
 * throttling counters (that is their job), so those two are not part of it.
 */
export interface DbSnapshot {
  [table: string]: string;
}

const OWNED = (table: string, alias = 't') => `SELECT count(*) || ':' || coalesce(sum(hashtext(${alias}::text)::bigint), 0) FROM ${table}`;

const SNAPSHOT_SQL = `
  SELECT
    (SELECT count(*) || ':' || coalesce(sum(hashtext(t::text)::bigint), 0) FROM users t) AS users,
    (${OWNED('email_accounts t')} WHERE t.user_id = ANY($1::uuid[])) AS email_accounts,
    (${OWNED('mail_sync_states t JOIN email_accounts a ON a.id = t.email_account_id')} WHERE a.user_id = ANY($1::uuid[])) AS mail_sync_states,
    (${OWNED('email_account_members t JOIN email_accounts a ON a.id = t.email_account_id')} WHERE a.user_id = ANY($1::uuid[]) OR t.user_id = ANY($1::uuid[])) AS email_account_members,
    (${OWNED('contacts t')} WHERE t.user_id = ANY($1::uuid[])) AS contacts,
    (${OWNED('contact_suppressions t JOIN email_accounts a ON a.id = t.email_account_id')} WHERE a.user_id = ANY($1::uuid[])) AS contact_suppressions,
    (${OWNED('emails t')} WHERE t.user_id = ANY($1::uuid[])) AS emails,
    (${OWNED('email_contacts t JOIN emails e ON e.id = t.email_id')} WHERE e.user_id = ANY($1::uuid[])) AS email_contacts,
    (${OWNED('timesheets t')} WHERE t.user_id = ANY($1::uuid[])) AS timesheets,
    (${OWNED('sessions t')} WHERE t.user_id = ANY($1::uuid[])) AS sessions,
    (SELECT count(*)::text FROM email_accounts) AS all_email_accounts,
    (SELECT count(*)::text FROM contacts) AS all_contacts,
    (SELECT count(*)::text FROM timesheets) AS all_timesheets,
    (SELECT count(*)::text FROM sessions) AS all_sessions,
    (SELECT coalesce(max(id), 0)::text FROM audit_logs WHERE success) AS successful_audit
`;

export async function dbSnapshot(sequelize: Sequelize, userIds: string[]): Promise<DbSnapshot> {
  const [row] = await sequelize.query<DbSnapshot>(SNAPSHOT_SQL, { bind: [userIds], type: QueryTypes.SELECT });
  return { ...row };
}

/** The files of a directory (sorted); [] when it does not exist. */
export function filesIn(dir: string): string[] {
  try {
    return fs.readdirSync(dir).sort();
  } catch {
    return [];
  }
}
