/**
 * The environment the embedded PostgreSQL's programs (initdb, pg_ctl and so the postmaster and every
 * backend) run with: a few variables they need, nothing else (issue 52, finding 8). An inherited
 * environment put JWT_*, CRM_ENCRYPTION_KEY and BACKUP_SIGNING_KEY, when set as variables, into the
 * postgres OS user's /proc/<pid>/environ, readable by anything running as that user (an extension,
 * COPY ... PROGRAM by a superuser, a compromised backend).
 */
const PASSED_ON = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'LC_MESSAGES', 'TZ', 'TMPDIR', 'LD_LIBRARY_PATH'] as const;

export function postgresEnv(from: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: from.PATH ?? '/usr/local/bin:/usr/bin:/bin' };
  for (const name of PASSED_ON) if (from[name] !== undefined) env[name] = from[name];
  return env;
}
