import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppContext } from './context.js';
import { makeDrainable, type Drainable } from './http-drain.js';
import { createApp } from './http-app.js';
import { createWorkerApp } from './worker-http-app.js';
import { createHttpServer } from '../http/http-server.js';
import { JobMetrics } from '../jobs/job-metrics.js';
import { JobRunner } from '../jobs/job-runner.js';
import { backgroundJobs } from './background-jobs.js';

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
  // Every background job of the service, from one list (src/app/background-jobs.ts, ADR 0145): the
  // mail sync only where this instance syncs; the others on every instance, each shared as its entry says.
  const jobs = backgroundJobs(ctx.services, config).filter((job) => options.sync || job.runsOn === 'every-instance');
  const runner = new JobRunner(jobs, logger, new JobMetrics(ctx.services.metrics, jobs));
  runner.start();
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
        options.sync ? runner.stop() : Promise.all([runner.stop(), ctx.services.mailSync.shutdown()]),
      ]);
      // The requests are drained: the HTML cleaning threads (ADR 0162) have nothing left to do.
      if (ctx.services.isBuilt('htmlRenderPool')) await ctx.services.htmlRenderPool.close();
      // Stop watching before the pool closes and the database stops: our own stop is not a crash.
      await supervisor?.stop();
      // The embedded database is stopped only if this process started (or restarted) it, never one a
      // second serve merely adopted.
      await ctx.close();
      logger.info('shutdown complete');
    })());
  return { url, stop };
}

function formatHost(address: AddressInfo): string {
  return address.family === 'IPv6' ? `[${address.address}]` : address.address;
}
