import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from '../logging/logger.js';
import { isJobRound, type BackgroundJob } from './background-job.js';

/** Where a run's outcome is counted (job-metrics.ts); absent in tests that drive one job alone. */
export interface JobObserver {
  ran(job: string, result: 'ok' | 'error', seconds: number, round?: { done: number; failed: number }): void;
}

/**
 * Drives background jobs the same way (ADR 0145): a timer per job (an interval, first run at once,
 * or a cron expression), `skip` or `join` for a tick that finds a run going, every throw logged and
 * counted (the next tick runs again), every run timed. `stop()` stops the ticks, then each job's own
 * stop, then waits for the runs in progress.
 */
export class JobRunner {
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly tasks: ScheduledTask[] = [];
  /** Per job the run a `skip` job is in (a tick meanwhile is skipped). */
  private readonly running = new Map<string, Promise<unknown>>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(
    readonly jobs: readonly BackgroundJob[],
    private readonly logger: Logger,
    private readonly observer?: JobObserver,
  ) {}

  start(): void {
    for (const job of this.jobs) {
      if ('cron' in job.schedule) {
        this.tasks.push(cron.schedule(job.schedule.cron, () => this.tick(job), { name: job.name }));
      } else {
        this.timers.push(setInterval(() => void this.tick(job), job.schedule.everySeconds * 1000));
        void this.tick(job); // the first look right away, not one interval after start
      }
    }
    this.logger.info('background jobs scheduled', { jobs: this.jobs.map((j) => j.name) });
  }

  /** One run of `job` now (what a timer does); answers when it (or the run it joined) ends. */
  tick(job: BackgroundJob): Promise<unknown> {
    if (this.stopped) return Promise.resolve();
    if (job.overlap === 'skip') {
      const current = this.running.get(job.name);
      if (current) return current;
    }
    const run = this.measured(job).finally(() => {
      this.inFlight.delete(run);
      if (this.running.get(job.name) === run) this.running.delete(job.name);
    });
    this.inFlight.add(run);
    if (job.overlap === 'skip') this.running.set(job.name, run);
    return run;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    for (const task of this.tasks) {
      await task.stop();
      await task.destroy();
    }
    for (const job of this.jobs) {
      await job.stop?.().catch((err: unknown) => this.logger.error('background job did not stop cleanly', { job: job.name, err }));
    }
    await Promise.allSettled([...this.inFlight]);
  }

  private async measured(job: BackgroundJob): Promise<unknown> {
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const result = await job.run();
      this.observer?.ran(job.name, 'ok', seconds(), isJobRound(result) ? result : undefined);
      return result;
    } catch (err) {
      this.observer?.ran(job.name, 'error', seconds());
      this.logger.error('background job run failed', { job: job.name, err });
      return undefined;
    }
  }
}
