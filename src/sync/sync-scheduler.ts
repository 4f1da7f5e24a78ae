import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from '../logging/logger.js';

export interface SyncRunner {
  /**
   * Syncs accounts that are due with this process's free workers; must be safe to call while earlier
   * calls are still going (it then only adds workers up to its limit).
   */
  runDueAccounts(): Promise<unknown>;
  /** Lets the batch in progress finish or checkpoint, then returns. */
  shutdown(): Promise<void>;
}

export type SchedulerTiming =
  /** Every few seconds (the default): each account is then synced close to its own turn. */
  | { everyMs: number }
  /** Only at these cron times (SYNC_CRON): mail waits for the next firing. */
  | { cron: string };

/**
 * Looks for due accounts on a timer. Which accounts are due, and when, is decided in the database
 * (each account's turn, sync-schedule.ts); the tick only wakes the workers. A tick while workers are
 * busy is not skipped: free workers join, busy ones carry on.
 */
export class SyncScheduler {
  private timer?: NodeJS.Timeout;
  private task?: ScheduledTask;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly timing: SchedulerTiming,
    private readonly runner: SyncRunner,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if ('cron' in this.timing) {
      this.task = cron.schedule(this.timing.cron, () => this.tick(), { name: 'mail-sync' });
      this.logger.info('mail sync scheduled', { cron: this.timing.cron });
    } else {
      this.timer = setInterval(() => void this.tick(), this.timing.everyMs);
      this.logger.info('mail sync scheduled', { tickMs: this.timing.everyMs });
      void this.tick(); // the first look right away, not one tick after start
    }
  }

  tick(): Promise<unknown> {
    const run = this.runner.runDueAccounts().catch((err: unknown) => this.logger.error('mail sync run failed', { err }));
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
    return run;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.task?.stop();
    await this.task?.destroy();
    await this.runner.shutdown();
    await Promise.allSettled([...this.inFlight]);
  }
}
