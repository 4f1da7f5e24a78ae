import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppContext } from './context.js';
import { createApp } from '../http/app.js';
import { SyncScheduler } from '../sync/sync-scheduler.js';

export interface ServeOptions {
  api: boolean;
  sync: boolean;
  port?: number;
  host?: string;
}

export interface RunningServer {
  url?: string;
  /** Graceful stop: no new connections, in-flight requests finish, the sync checkpoints, the pool closes. */
  stop(): Promise<void>;
}

export async function startServer(ctx: AppContext, options: ServeOptions): Promise<RunningServer> {
  const { config, logger } = ctx;
  let server: http.Server | undefined;
  let scheduler: SyncScheduler | undefined;

  if (options.api) {
    const app = createApp(ctx);
    server = http.createServer(app);
    // Slow-loris protection and a bound on how long a stuck client holds a socket.
    server.headersTimeout = 20_000;
    server.requestTimeout = 120_000;
    server.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(options.port ?? config.port, options.host ?? config.host, () => resolve());
    });
  }
  if (options.sync) {
    scheduler = new SyncScheduler(config.syncCron, ctx.services.mailSync, logger);
    scheduler.start();
  }
  const address = server?.address() as AddressInfo | undefined;
  const url = address ? `http://${address.address}:${address.port}` : undefined;
  logger.info('crm-admin serve started', { url, api: options.api, sync: options.sync, pid: process.pid });

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      logger.info('shutting down');
      const closed = server ? new Promise<void>((resolve) => server!.close(() => resolve())) : Promise.resolve();
      // Idle keep-alive sockets would hold close() open until they time out; busy ones finish first.
      server?.closeIdleConnections();
      await Promise.all([closed, scheduler?.stop()]);
      await ctx.close({ stopEmbedded: true });
      logger.info('shutdown complete');
    })());
  return { url, stop };
}
