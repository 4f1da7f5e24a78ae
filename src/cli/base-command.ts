import os from 'node:os';
import readline from 'node:readline/promises';
import { Command, Errors, Flags } from '@oclif/core';
import { createAppContext, type AppContext } from '../app/context.js';
import { AppConfig, ConfigError } from '../config/config.js';
import { AppError } from '../errors/app-errors.js';
import { createLogger, type Logger } from '../logging/logger.js';
import type { RequestMeta } from '../shared/request-meta.js';

/**
 * Shared plumbing of crm-admin commands: one app context (same services as the HTTP API), clean
 * stdout for --json, errors on stderr with exit 1 for validation/not-found and 2 for usage.
 */
export abstract class BaseCommand extends Command {
  static override enableJsonFlag = true;
  static override baseFlags = {
    yes: Flags.boolean({ char: 'y', description: 'answer yes to confirmations (for scripts)', default: false }),
  };

  protected ctx?: AppContext;
  private validatedConfig?: AppConfig;

  /** The validated environment (a ConfigError lists every problem and exits 1, see catch()). */
  protected appConfig(): AppConfig {
    return (this.validatedConfig ??= AppConfig.fromEnv());
  }

  /** Commands log to stderr at CLI_LOG_LEVEL (stdout stays clean for --json); serve logs to stdout at LOG_LEVEL. */
  protected commandLogger(config: AppConfig, options: { service?: boolean } = {}): Logger {
    return options.service ? createLogger(config.logLevel) : createLogger(config.cliLogLevel, { stderr: true });
  }

  /** Opens the database (embedded or DATABASE_URL) and, unless told otherwise, applies pending migrations. */
  protected async appContext(options: { migrate?: boolean } = {}): Promise<AppContext> {
    if (!this.ctx) {
      const config = this.appConfig();
      this.ctx = await createAppContext({ config, logger: this.commandLogger(config), poolMax: 4, migrate: options.migrate ?? true });
    }
    return this.ctx;
  }

  /** Audit actor for CLI actions: the OS account that ran the command. */
  protected cliMeta(): RequestMeta {
    let name = 'unknown';
    try {
      name = os.userInfo().username;
    } catch {
      /* containers may have no passwd entry for the uid */
    }
    return { actor: `cli:${name}`, ip: null, userAgent: 'crm-admin' };
  }

  /** Asks before destroying data; --yes skips it, and without a terminal we refuse rather than guess. */
  protected async confirm(question: string, yes: boolean): Promise<boolean> {
    if (yes) return true;
    if (!process.stdin.isTTY) {
      this.error('Potvrdenie je potrebné: spustite s --yes', { exit: 2 });
    }
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
    try {
      const answer = await rl.question(`${question} [y/N] `);
      return /^(y|yes|a|áno|ano)$/i.test(answer.trim());
    } finally {
      rl.close();
    }
  }

  /** A free-text answer from the terminal; undefined without one (scripts must pass flags instead). */
  protected async ask(question: string): Promise<string | undefined> {
    if (!process.stdin.isTTY) return undefined;
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
    try {
      return (await rl.question(`${question} `)).trim();
    } finally {
      rl.close();
    }
  }

  protected override async catch(err: Error & { exitCode?: number; oclif?: { exit?: number } }): Promise<unknown> {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return this.exit(1);
    }
    if (err instanceof AppError) {
      if (this.jsonEnabled()) {
        process.stderr.write(`${JSON.stringify({ error: { message: err.message, statusCode: err.statusCode, details: err.details } })}\n`);
      } else {
        process.stderr.write(`Chyba: ${err.message}${err.details ? `\n${JSON.stringify(err.details, null, 2)}` : ''}\n`);
      }
      return this.exit(1);
    }
    if (err instanceof Errors.CLIError || err.oclif) return super.catch(err);
    process.stderr.write(`Chyba: ${err.message}\n`);
    return this.exit(1);
  }

  protected override async finally(err: Error | undefined): Promise<unknown> {
    await this.ctx?.close().catch(() => {});
    return super.finally(err);
  }
}
