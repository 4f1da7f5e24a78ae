import { Flags } from '@oclif/core';
import { Command } from '@oclif/core';
import { createAppContext } from '../src/app/context.js';
import { startServer } from '../src/app/server.js';
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
    let server;
    try {
      const ctx = await createAppContext({ config, logger, poolMax: 20 });
      server = await startServer(ctx, { api: flags.api, sync: flags.sync, port: flags.port });
    } catch (err) {
      // One clear line for journald, then a non-zero exit so systemd's restart policy sees the failure.
      logger.error(`start failed: ${(err as Error).message}`);
      return this.exit(1);
    }
    const shutdown = (signal: string) => {
      logger.info('signal received', { signal });
      const deadline = setTimeout(() => {
        logger.error('shutdown timed out; exiting');
        process.exit(1);
      }, config.shutdownTimeoutMs);
      deadline.unref();
      server!.stop().then(
        () => process.exit(0),
        (err) => {
          logger.error('shutdown failed', { err });
          process.exit(1);
        },
      );
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
    // Keep the command alive; the signal handlers end the process.
    await new Promise(() => {});
  }
}
