import type * as PromClient from 'prom-client';
import type { Counter, Gauge, Histogram } from 'prom-client';
import type { AppMetrics } from '../metrics/metrics.js';
import { lazyRequire } from '../shared/lazy-require.js';
import type { BackgroundJob, JobBacklog } from './background-job.js';
import type { JobObserver } from './job-runner.js';

/** Loaded when an instance first builds its metrics (ADR 0113): a crm-admin command never does. */
const prom = lazyRequire<typeof PromClient>('prom-client');

/**
 * The same metrics for every background job (ADR 0145), labelled `job`: runs and their duration on
 * this instance, items done and failed, and, read from the database at each scrape, the work due and
 * not done, its oldest item's wait and the leases that ran out (the whole cluster's, like the sync
 * gauges: a dead instance shows on any other).
 */
export class JobMetrics implements JobObserver {
  readonly runs: Counter<'job' | 'result'>;
  readonly duration: Histogram<'job'>;
  readonly items: Counter<'job' | 'outcome'>;
  readonly lastSuccess: Gauge<'job'>;
  readonly due: Gauge<'job'>;
  readonly oldestDue: Gauge<'job'>;
  readonly expiredLeases: Gauge<'job'>;
  /** One database read per job per scrape, shared by the three gauges prom-client collects together. */
  private pending?: Promise<Map<string, JobBacklog>>;

  constructor(metrics: AppMetrics, jobs: readonly BackgroundJob[]) {
    const registers = [metrics.registry];
    const labelNames = ['job'] as const;
    this.runs = new (prom().Counter)({
      name: 'crm_job_runs_total',
      help: 'Runs of a background job on this instance, by result (ok, error)',
      labelNames: ['job', 'result'] as const,
      registers,
    });
    this.duration = new (prom().Histogram)({
      name: 'crm_job_run_duration_seconds',
      help: 'Duration of one run of a background job on this instance',
      labelNames,
      buckets: [0.005, 0.025, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    });
    this.items = new (prom().Counter)({
      name: 'crm_job_items_total',
      help: 'Items a background job finished on this instance, by outcome (done, failed: given up or to be retried)',
      labelNames: ['job', 'outcome'] as const,
      registers,
    });
    this.lastSuccess = new (prom().Gauge)({
      name: 'crm_job_last_success_timestamp_seconds',
      help: 'When a run of the job last ended without an error on this instance (Unix time; 0 before the first)',
      labelNames,
      registers,
    });
    const read = (apply: (b: JobBacklog) => number) =>
      async function collect(this: Gauge<'job'>) {
        const backlogs = await self.backlogs(jobs);
        for (const [job, backlog] of backlogs) this.set({ job }, apply(backlog));
      };
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- prom-client calls collect with the gauge as `this`
    const self = this;
    this.due = new (prom().Gauge)({
      name: 'crm_job_due',
      help: 'Items of a background job due and not done (whole database, read when scraped)',
      labelNames,
      registers,
      collect: read((b) => b.due),
    });
    this.oldestDue = new (prom().Gauge)({
      name: 'crm_job_oldest_due_seconds',
      help: 'Seconds the oldest due item of a background job has been waiting (0 when none; whole database)',
      labelNames,
      registers,
      collect: read((b) => b.oldestDueSeconds ?? 0),
    });
    this.expiredLeases = new (prom().Gauge)({
      name: 'crm_job_leases_expired',
      help: 'Items of a background job whose holder stopped renewing its lease (crashed or hung) and nobody has taken over yet',
      labelNames,
      registers,
      collect: read((b) => b.expiredLeases),
    });
    // Every job has a sample from the start: rate() and absent() alerts need a 0 before the first run.
    for (const { name: job } of jobs) {
      for (const result of ['ok', 'error']) this.runs.inc({ job, result }, 0);
      for (const outcome of ['done', 'failed']) this.items.inc({ job, outcome }, 0);
      this.duration.zero({ job });
      this.lastSuccess.set({ job }, 0);
    }
  }

  ran(job: string, result: 'ok' | 'error', seconds: number, round?: { done: number; failed: number }): void {
    this.runs.inc({ job, result });
    this.duration.observe({ job }, seconds);
    if (result === 'ok') this.lastSuccess.set({ job }, Date.now() / 1000);
    if (round) {
      this.items.inc({ job, outcome: 'done' }, round.done);
      this.items.inc({ job, outcome: 'failed' }, round.failed);
    }
  }

  private backlogs(jobs: readonly BackgroundJob[]): Promise<Map<string, JobBacklog>> {
    this.pending ??= (async () => {
      const found = new Map<string, JobBacklog>();
      for (const job of jobs) {
        // The database is down: that job's gauges keep their last values, /ready says why.
        const backlog = await job.backlog().catch(() => undefined);
        if (backlog) found.set(job.name, backlog);
      }
      return found;
    })().finally(() => setImmediate(() => (this.pending = undefined)));
    return this.pending;
  }
}
