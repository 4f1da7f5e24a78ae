import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppContext } from './context.js';
import { makeDrainable, type Drainable } from './http-drain.js';
import { createApp } from './http-app.js';
import { createWorkerApp } from './worker-http-app.js';
import { createHttpServer } from '../http/http-server.js';
import { SyncScheduler } from '../sync/sync-scheduler.js';
import { MaintenanceScheduler } from '../maintenance/maintenance-scheduler.js';
import { tickMs } from '../sync/sync-schedule.js';

export interface ServeOptions {
  api: boolean;
  sync: boolean;
  port?: number;
  host?: string;
  /** The embedded PostgreSQL died and could not be started again: the service must exit non-zero. */
  onDatabaseLost?: (err: unknown) => void;
}

export interface RunningServer {
  url: string;
  /** Graceful stop: no new connections, in-flight requests finish, the sync checkpoints, the pool closes. */
  stop(): Promise<void>;
}

export async function startServer(ctx: AppContext, options: ServeOptions): Promise<RunningServer> {
  const { config, logger } = ctx;
  let scheduler: SyncScheduler | undefined;

  // A worker (--no-api) listens too, with health and metrics only (worker-http-app.ts): a dead
  // worker must be visible to systemd, a load balancer and Prometheus.
  const app = options.api ? createApp(ctx) : createWorkerApp(ctx);
  // Requests Node itself refuses (431, malformed, no Host) get the error envelope too.
  const server: http.Server = createHttpServer(app);
  // Slow-loris protection and a bound on how long a stuck client holds a socket.
  server.headersTimeout = 20_000;
  server.requestTimeout = 120_000;
  server.keepAliveTimeout = 5_000;
  const drainable: Drainable = makeDrainable(server, logger);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? config.port, options.host ?? config.host, () => resolve());
  });
  // The embedded PostgreSQL is ours to keep alive: a dead postmaster is started again on its port.
  const supervisor = ctx.db.embedded?.supervise({
    log: (level, message, meta) => logger.log(level, message, meta),
    onGiveUp: (err) => options.onDatabaseLost?.(err),
  });
  if (options.sync) {
    const timing = config.syncCron ? { cron: config.syncCron } : { everyMs: tickMs(config.syncIntervalSeconds * 1000) };
    scheduler = new SyncScheduler(timing, ctx.services.mailSync, logger);
    scheduler.start();
  }
  // Retention (expired sessions, old audit records, expired throttle counters): every instance
  // schedules it, one at a time does it (advisory lock).
  const maintenance = new MaintenanceScheduler(ctx.services.retention, logger);
  maintenance.start();
  // The live-update outbox is kept for minutes only: every instance prunes it every minute.
  const outboxPruning = new MaintenanceScheduler(ctx.services.outboxPruner, logger, '* * * * *');
  outboxPruning.start();
  // Follow-ups that came due: every instance checks, one claims each (ADR 0119).
  const followUpsDue = new MaintenanceScheduler(ctx.services.followUpDue, logger, followUpCron(config.followUpCheckSeconds));
  followUpsDue.start();
  // Tasks that came due: the same check in the same shape, on the same period (ADR 0140).
  const tasksDue = new MaintenanceScheduler(ctx.services.taskDue, logger, followUpCron(config.followUpCheckSeconds));
  tasksDue.start();
  // Webhooks: every instance copies new outbox events and works off due deliveries (leased, ADR 0134).
  const webhookDeliveries = new MaintenanceScheduler(ctx.services.webhookDelivery, logger, '* * * * * *');
  webhookDeliveries.start();
  const address = server.address() as AddressInfo;
  const url = `http://${formatHost(address)}:${address.port}`;
  logger.info('crm-admin serve started', { url, api: options.api, sync: options.sync, pid: process.pid });

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      logger.info('shutting down');
      // Requests keep the database until they are done: HTTP and the sync batch first, then the pool.
      // Three quarters of the budget for the drain leaves time to close the pool and stop PostgreSQL.
      // An API-only replica runs no scheduler but may run a "sync now" in the background: stop that too.
      // Event streams never end by themselves: they are closed first (clients reconnect elsewhere).
      await Promise.all([
        // Built only where a stream was opened or the API mounted it: closing must not build it.
        ctx.services.isBuilt('events') ? ctx.services.events.close() : undefined,
        drainable.drain(Math.floor(config.shutdownTimeoutMs * 0.75)),
        scheduler ? scheduler.stop() : ctx.services.mailSync.shutdown(),
        maintenance.stop(),
        outboxPruning.stop(),
        followUpsDue.stop(),
        tasksDue.stop(),
        webhookDeliveries.stop(),
      ]);
      // Stop watching before the pool closes and the database stops: our own stop is not a crash.
      await supervisor?.stop();
      // The embedded database is stopped only if this process started (or restarted) it, never one a
      // second serve merely adopted.
      await ctx.close();
      logger.info('shutdown complete');
    })());
  return { url, stop };
}

/** Every `seconds` (a divisor of 60, FOLLOW_UP_CHECK_SECONDS) of each minute. */
function followUpCron(seconds: number): string {
  return seconds === 60 ? '0 * * * * *' : `*/${seconds} * * * * *`;
}

function formatHost(address: AddressInfo): string {
  return address.family === 'IPv6' ? `[${address.address}]` : address.address;
}
