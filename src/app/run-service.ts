import type { AppConfig } from '../config/config.js';
import type { Logger } from '../logging/logger.js';
import { watchConnection, type ConnectionWatch } from '../db/connection-watch.js';
import { createAppContext, type AppContext } from './context.js';
import { awaitDatabase } from './database-start.js';
import { startServer, type RunningServer, type ServeOptions } from './server.js';
import { describeStartError } from './start-errors.js';

/**
 * The whole life of `crm-admin serve`: start, wait for SIGTERM/SIGINT, stop gracefully within
 * SHUTDOWN_TIMEOUT_MS. Resolves with the process exit code; the command only hands it to oclif.
 */
export async function runService(config: AppConfig, logger: Logger, options: ServeOptions): Promise<number> {
  let server: RunningServer | undefined;
  let connectionWatch: ConnectionWatch | undefined;
  let stopRequested = false;
  // A SIGTERM while waiting for the database ends the wait at once.
  const waiting = new AbortController();
  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => (finish = resolve));

  const beginStop = (running: RunningServer, exitCode = 0) => {
    connectionWatch?.stop();
    const deadline = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      finish(1);
    }, config.shutdownTimeoutMs);
    deadline.unref();
    running.stop().then(
      () => finish(exitCode),
      (err: unknown) => {
        logger.error('shutdown failed', { err });
        finish(1);
      },
    );
  };
  const onSignal = (signal: string) => {
    if (stopRequested) return;
    stopRequested = true;
    logger.info('signal received', { signal });
    waiting.abort();
    // A signal during the start (migrations) is answered once the start is through.
    if (server) beginStop(server);
  };
  // Installed before the start: a SIGTERM during migrations must not kill the process mid-transaction.
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('SIGINT', () => onSignal('SIGINT'));

  let ctx: AppContext | undefined;
  try {
    const syncRole = options.api ? (options.sync ? 'serve' : 'api') : 'worker';
    const port = await awaitDatabase(config, logger, options, waiting.signal);
    ctx = await createAppContext({ config, logger, poolMax: config.databasePoolMax, service: true, syncRole });
    server = await startServer(ctx, {
      ...options,
      port,
      // Exit non-zero so that systemd's Restart= starts the whole service again.
      onDatabaseLost: () => {
        if (stopRequested || !server) return;
        stopRequested = true;
        beginStop(server, 1);
      },
    });
    connectionWatch = watchConnection(ctx.db.sequelize, logger);
  } catch (err) {
    if (waiting.signal.aborted && (err as Error).name === 'AbortError') {
      logger.info('stopped while waiting for the database');
      return 0;
    }
    // Leave no embedded PostgreSQL behind that this attempt started (the next start would adopt it).
    await ctx?.close().catch(() => {});
    // One clear line for journald, then a non-zero exit so systemd's restart policy sees the failure.
    logger.error(describeStartError(err, config, options.port));
    return 1;
  }
  if (stopRequested) beginStop(server);
  return finished;
}
