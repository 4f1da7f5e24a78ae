/** One doctor line per background job (ADR 0145): its backlog, read like the crm_job_* gauges. */
import type { BackgroundJob } from '../jobs/background-job.js';
import { ok, warn, type CheckResult } from './doctor-types.js';

export type CheckedJob = Pick<BackgroundJob, 'name' | 'overdueAfterSeconds' | 'backlog'>;

/**
 * `job:<name>`: ok while nothing due waits longer than the job's overdueAfterSeconds and no lease ran
 * out; warn otherwise (no instance runs the job, or it cannot keep up). Never a fail: a backlog is
 * worked off once an instance runs, and the workers check already fails a cluster that runs nothing.
 */
export async function checkJobs(jobs: readonly CheckedJob[]): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const job of jobs) {
    const name = `job:${job.name}`;
    const b = await job.backlog();
    const waiting = b.oldestDueSeconds === null || b.due === 0 ? '' : `, the oldest waiting ${Math.round(b.oldestDueSeconds)} s`;
    const expired = b.expiredLeases > 0 ? `; ${b.expiredLeases} expired lease(s)` : '';
    const line = `${b.due} due${waiting}${expired}`;
    if (b.due > 0 && (b.oldestDueSeconds ?? 0) > job.overdueAfterSeconds) {
      results.push(warn(name, line, `no serve runs ${job.name}, or it cannot keep up: check that crm-admin serve runs and its log (crm_job_* metrics)`));
    } else if (b.expiredLeases > 0) {
      results.push(warn(name, line, 'an instance stopped mid-work (crashed or hung); another takes its items over at its next run'));
    } else results.push(ok(name, line));
  }
  return results;
}
