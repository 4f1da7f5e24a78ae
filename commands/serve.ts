import { Flags } from '@oclif/core';
import { BaseCommand } from '../src/cli/base-command.js';

export default class Serve extends BaseCommand {
  static override description =
    'Run the HTTP API (/api) and the cron-driven JMAP mail sync in one process. Applies pending migrations first. ' +
    'A sync worker (--no-api) still listens on PORT, with /api/health, /api/health/ready and the metrics endpoint only.';

  static override enableJsonFlag = false;

  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --no-sync            # API replica only',
    '<%= config.bin %> serve --no-api --port 3001 # sync worker only (health and metrics on 3001)',
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
    const config = this.appConfig();
    // The HTTP app (express, multer, prom-client ...) loads only when the service really starts.
    const { runService } = await import('../src/app/run-service.js');
    const code = await runService(config, this.commandLogger(config, { service: true }), { api: flags.api, sync: flags.sync, port: flags.port });
    // Exit at once: the pool and PostgreSQL are closed, timers and sockets left behind must not keep us.
    process.exit(code);
  }
}
