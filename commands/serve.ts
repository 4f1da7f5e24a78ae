import { Flags } from '@oclif/core';
import { Command } from '@oclif/core';
import { createAppContext, type AppContext } from '../src/app/context.js';
import { startServer, type RunningServer } from '../src/app/server.js';
import { describeStartError } from '../src/app/start-errors.js';
import { AppConfig } from '../src/config/config.js';
import { createLogger } from '../src/logging/logger.js';

export default class Serve extends Command {
  static override description =
    'Run the HTTP API (/api) and the cron-driven JMAP mail sync in one process. Applies pending migrations first.';

  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --no-sync            # API replica only',
    '<%= config.bin %> serve --no-api             # sync worker only',
    'PORT=8080 HOST=0.0.0.0 <%= config.bin %> serve',
  ];

  static override flags = {
    api: Flags.boolean({ description: 'serve the HTTP API', default: true, allowNo: true }),
    sync: Flags.boolean({ description: 'run the mail sync scheduler', default: true, allowNo: true }),
    port: Flags.integer({ description: 'listen port (overrides PORT)', min: 0, max: 65535 }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    if (!flags.api && !flags.sync) this.error('--no-api and --no-sync together leave nothing to run', { exit: 2 });
    let config: AppConfig;
    try {
      config = AppConfig.fromEnv();
    } catch (err) {
      process.stderr.write(`${(err as Error).message}\n`);
      return this.exit(1);
    }
    const logger = createLogger(config.logLevel);

    let server: RunningServer | undefined;
    let stopRequested = false;
    const beginStop = (running: RunningServer) => {
      const deadline = setTimeout(() => {
        logger.error('shutdown timed out; exiting');
        process.exit(1);
      }, config.shutdownTimeoutMs);
      deadline.unref();
      running.stop().then(
        () => process.exit(0),
        (err) => {
          logger.error('shutdown failed', { err });
          process.exit(1);
        },
      );
    };
    const shutdown = (signal: string) => {
      if (stopRequested) return;
      stopRequested = true;
      logger.info('signal received', { signal });
      // A signal during the start (migrations) is answered once the start is through.
      if (server) beginStop(server);
    };
    // Installed before the start: a SIGTERM during migrations must not kill the process mid-transaction.
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));

    let ctx: AppContext | undefined;
    try {
      ctx = await createAppContext({ config, logger, poolMax: 20 });
      server = await startServer(ctx, { api: flags.api, sync: flags.sync, port: flags.port });
    } catch (err) {
      // Leave no embedded PostgreSQL behind that this attempt started (the next start would adopt it).
      await ctx?.close().catch(() => {});
      // One clear line for journald, then a non-zero exit so systemd's restart policy sees the failure.
      logger.error(describeStartError(err, config, flags.port));
      return this.exit(1);
    }
    if (stopRequested) beginStop(server);
    // Keep the command alive; the signal handlers end the process.
    await new Promise(() => {});
  }
}
