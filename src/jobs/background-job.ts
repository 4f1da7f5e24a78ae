/**
 * One shape for every piece of background work of `serve` (issue 51, docs/adr/0145-one-shape-for-background-work.md):
 * the sync turns, retention, outbox pruning, follow-ups coming due, webhook deliveries, scheduled
 * sends... Each is declared once, in the list of src/app/background-jobs.ts, as a BackgroundJob: when
 * it runs, how instances share it, what a failure leads to, and how much of its work is due and not
 * done. The runner (job-runner.ts) drives them all alike and measures them alike (job-metrics.ts);
 * `crm-admin doctor` reads the same backlog (src/doctor/job-checks.ts).
 */

/** When a job runs in each serve: every few seconds (first run right at start), or at cron times. */
export type JobSchedule = { everySeconds: number } | { cron: string };

/**
 * How several instances share one job (each runs the job; what keeps the work from happening twice):
 * - `claimed-rows`: every item is a row claimed with FOR UPDATE SKIP LOCKED, so instances split the
 *   work: in the transaction that does it (follow-ups), or with a lease that a holder that died
 *   loses, so another takes the item over (sync, webhooks, scheduled sends).
 * - `advisory-lock`: a run holds a PostgreSQL advisory lock; the other instances skip that run.
 * - `harmless-repeat`: every instance runs it; two runs at once do the same idempotent work.
 */
export type JobSharing = 'claimed-rows' | 'advisory-lock' | 'harmless-repeat';

/** Work due and not done, read from the database: the whole cluster's, whichever instance runs. */
export interface JobBacklog {
  /** Items whose time has come and that nobody has done yet. */
  due: number;
  /** Seconds the oldest of them has been waiting; null when none is due. */
  oldestDueSeconds: number | null;
  /** Items claimed by a holder whose lease ran out (a crashed or hung instance), not taken over yet. */
  expiredLeases: number;
}

/** What one run did, for the items counters; a job that has no items answers nothing. */
export interface JobRound {
  done: number;
  failed: number;
}

export interface BackgroundJob {
  /** Stable name: the `job` label of the metrics, the doctor line `job:<name>`, log fields. */
  readonly name: string;
  /** What it does, in one line (doctor, docs). */
  readonly description: string;
  readonly schedule: JobSchedule;
  readonly sharing: JobSharing;
  /** What a failed item or run leads to, in one line (docs/architecture.md lists them). */
  readonly retries: string;
  /**
   * `skip`: a tick while a run is still going is skipped. `join`: a run starts at every tick, and the
   * job bounds its own concurrency (the sync's free workers join; slow webhook receivers hold only
   * their own deliveries).
   */
  readonly overlap: 'skip' | 'join';
  /** Every serve, or only those that sync (not `serve --no-sync`). */
  readonly runsOn: 'every-instance' | 'sync-instances';
  /** Due work older than this means the job does not keep up or does not run: doctor warns. */
  readonly overdueAfterSeconds: number;
  /** One run; a JobRound answered is counted in crm_job_items_total. A throw is counted and logged; the next tick runs again. */
  run(): Promise<unknown>;
  backlog(): Promise<JobBacklog>;
  /** At shutdown, after ticks stopped: lets the work in progress finish or checkpoint. */
  stop?(): Promise<void>;
}

export function isJobRound(value: unknown): value is JobRound {
  return typeof value === 'object' && value !== null && typeof (value as JobRound).done === 'number' && typeof (value as JobRound).failed === 'number';
}
