import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from '../logging/logger.js';

/** Once an hour, at a minute away from the full hour (when the mail sync's default schedule runs). */
export const MAINTENANCE_CRON = '17 * * * *';

/**
 * Drives the hourly housekeeping of `serve` (retention-service.ts). Every instance schedules it; the
 * job's advisory lock lets one of them do the work. A failed run is logged and tried again next hour.
 */
export class MaintenanceScheduler {
  private task?: ScheduledTask;
  private running?: Promise<unknown>;

  constructor(
    private readonly job: { run(): Promise<unknown> },
    private readonly logger: Logger,
    private readonly expression = MAINTENANCE_CRON,
  ) {}

  start(): void {
    this.task = cron.schedule(this.expression, () => this.tick(), { name: 'maintenance' });
  }

  tick(): Promise<unknown> {
    this.running ??= this.job
      .run()
      .catch((err: unknown) => this.logger.error('maintenance run failed', { err }))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  async stop(): Promise<void> {
    await this.task?.stop();
    await this.task?.destroy();
    await this.running;
  }
}
