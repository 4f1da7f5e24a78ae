/** One line of `crm-admin doctor`: what was checked, how it stands, and what to do when it is not ok. */
type CheckStatus = 'ok' | 'warn' | 'fail';

export interface CheckResult {
  /** Stable name (scripts branch on it): configuration, database, unaccent, migrations, connections ... */
  name: string;
  status: CheckStatus;
  /** What was found, in one line. */
  summary: string;
  /** What to do about it, in one line; absent when ok. */
  fix?: string;
}

export interface DoctorReport {
  /** True when no check failed (warnings allowed): the command's exit code follows it. */
  ok: boolean;
  checks: CheckResult[];
}

export const ok = (name: string, summary: string): CheckResult => ({ name, status: 'ok', summary });
export const warn = (name: string, summary: string, fix: string): CheckResult => ({ name, status: 'warn', summary, fix });
export const fail = (name: string, summary: string, fix: string): CheckResult => ({ name, status: 'fail', summary, fix });

export function report(checks: CheckResult[]): DoctorReport {
  return { ok: checks.every((c) => c.status !== 'fail'), checks };
}
