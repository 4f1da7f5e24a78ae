import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from '../logging/logger.js';

export interface SyncRunner {
  /** Syncs every account that is due; must be safe to call while a previous run is still going. */
  runDueAccounts(): Promise<unknown>;
  /** Lets the batch in progress finish or checkpoint, then returns. */
  shutdown(): Promise<void>;
}

/**
 * Drives the mail sync from SYNC_CRON. A tick that arrives while the previous run is still going is
 * skipped (node-cron's own noOverlap warns on console, bypassing our logger).
 */
export class SyncScheduler {
  private task?: ScheduledTask;
  private running?: Promise<unknown>;

  constructor(
    private readonly expression: string,
    private readonly runner: SyncRunner,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.task = cron.schedule(this.expression, () => this.tick(), { name: 'mail-sync' });
    this.logger.info('mail sync scheduled', { cron: this.expression });
  }

  tick(): Promise<unknown> {
    if (this.running) {
      this.logger.debug('mail sync tick skipped: previous run still going');
      return this.running;
    }
    this.running = this.runner
      .runDueAccounts()
      .catch((err) => this.logger.error('mail sync run failed', { err }))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  async stop(): Promise<void> {
    await this.task?.stop();
    await this.task?.destroy();
    await this.runner.shutdown();
    await this.running;
  }
}
