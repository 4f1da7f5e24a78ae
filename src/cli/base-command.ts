import os from 'node:os';
import readline from 'node:readline/promises';
import { format } from 'node:util';
import { Command, Errors, Flags } from '@oclif/core';
import type { AppContext } from '../app/context.js';
import { AppConfig, ConfigError } from '../config/config.js';
import { AppError } from '../errors/app-errors.js';
import { syslogPrefixFromEnv } from '../logging/journal.js';
import type { Logger } from '../logging/logger.js';
import type { RequestMeta } from '../shared/request-meta.js';
import { commandHost } from './command-host.js';
import { reportAppError, reportConfigError, reportOclifErrorAsJson, writeJsonError } from './command-errors.js';
import { deferredLogger, loggerModule } from './deferred-logger.js';
import { terminalSafeJson, terminalSafeLines } from './format.js';

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
    return (this.validatedConfig ??= AppConfig.fromEnv(commandHost().env));
  }

  /** Commands log to stderr at CLI_LOG_LEVEL (stdout stays clean for --json); serve logs to stdout at LOG_LEVEL. */
  protected commandLogger(config: AppConfig, options: { service?: boolean } = {}): Logger {
    if (options.service) return loggerModule().createLogger(config.logLevel, { syslogPrefix: config.logSyslogPrefix });
    const host = commandHost();
    // The process's stderr through winston's console transport, as always; another host's stream as such.
    const output = host.isProcess ? { stderr: true } : { stream: host.stderr };
    return deferredLogger(config.cliLogLevel, { ...output, syslogPrefix: syslogPrefixFromEnv(host.env, 2) });
  }

  /**
   * Opens the database (embedded or DATABASE_URL). A schema with pending migrations is refused (only
   * serve and `db migrate` change it, see src/db/schema-gate.ts); `migrate: false` takes it as it is.
   * `asOwner`: as the schema's owner, not the service's role (`db migrate`, `db restore`; ADR 0171).
   */
  protected async appContext(options: { migrate?: boolean; config?: AppConfig; asOwner?: boolean } = {}): Promise<AppContext> {
    if (!this.ctx) {
      // A command that validated the environment its own way (doctor: creating nothing) hands its config in.
      const config = options.config ?? this.appConfig();
      // The database, the models and every service load here, when a command first needs them: oclif
      // imports a command's file for more than running it, and --help or a usage error need none of this.
      // A sync a command asks for (email-accounts attach) is left to the serving instances: this process
      // exits when the command is done.
      const { createAppContext } = await import('../app/context.js');
      this.ctx = await createAppContext({
        config,
        logger: this.commandLogger(config),
        poolMax: 4,
        // A host's open database (the test process's): shared, so neither opened nor closed here.
        db: commandHost().db,
        migrate: options.migrate === false ? false : 'require-current',
        asOwner: options.asOwner,
        runRequestedSyncs: false,
        syncRole: 'cli',
      });
    }
    return this.ctx;
  }

  /**
   * Audit actor for CLI actions: the OS account that ran the command. Under systemd the command runs
   * as the service's own user; the wrapper (systemd/crm-admin) passes the admin who invoked it in
   * CRM_ADMIN_ACTOR (SUDO_USER, else logname, else the user). That is a label, not an authentication:
   * whoever may run crm-admin may set it, so the OS account is kept beside it when they differ.
   */
  protected cliMeta(): RequestMeta {
    return { actor: cliActor(commandHost().env.CRM_ADMIN_ACTOR), ip: null, userAgent: 'crm-admin' };
  }

  /**
   * Every human-readable line goes through here: stored text must not steer the admin's terminal.
   * Written as oclif's log() writes it (util.format, one newline), to the host's stdout.
   */
  override log(message = '', ...args: unknown[]): void {
    if (!this.jsonEnabled()) commandHost().stdout.write(`${format(terminalSafeLines(message), ...args)}\n`);
  }

  /** What oclif's logToStderr() writes, to the host's stderr. */
  override logToStderr(message = '', ...args: unknown[]): void {
    if (!this.jsonEnabled()) commandHost().stderr.write(`${format(message, ...args)}\n`);
  }

  /** --json output: unsafe characters as \u escapes (same value once parsed); no colours. */
  override logJson(json: unknown): void {
    commandHost().stdout.write(`${terminalSafeJson(json)}\n`);
  }

  /**
   * oclif's warning (its indented "Warning:" block) on the process; another host gets a plain line on
   * its stderr. The commands that warn (db backup, restore, migrate) are about the process and run as one.
   */
  override warn(input: string | Error): string | Error {
    const host = commandHost();
    if (host.isProcess) return super.warn(input);
    if (!this.jsonEnabled()) host.stderr.write(`Warning: ${typeof input === 'string' ? input : input.message}\n`);
    return input;
  }

  /** Asks before destroying data; --yes skips it, and without a terminal we refuse rather than guess. */
  protected async confirm(question: string, yes: boolean): Promise<boolean> {
    if (yes) return true;
    const host = commandHost();
    if (!host.stdin.isTTY) {
      this.error('Potvrdenie je potrebné: spustite s --yes', { exit: 2 });
    }
    const rl = readline.createInterface({ input: host.stdin, output: host.stderr });
    try {
      const answer = await rl.question(`${question} [y/N] `);
      return /^(y|yes|a|áno|ano)$/i.test(answer.trim());
    } finally {
      rl.close();
    }
  }

  /** A free-text answer from the terminal; undefined without one (scripts must pass flags instead). */
  protected async ask(question: string): Promise<string | undefined> {
    const host = commandHost();
    if (!host.stdin.isTTY) return undefined;
    const rl = readline.createInterface({ input: host.stdin, output: host.stderr });
    try {
      return (await rl.question(`${question} `)).trim();
    } finally {
      rl.close();
    }
  }

  /**
   * Errors on stderr, exit 2 for usage (parse errors, missing arguments, refusals that need a flag) and
   * 1 for failures. With --json, every error is one JSON object:
   * `{"error":{"code":...,"message":...,"statusCode"?:...,"details"?:...}}`; an AppError carries the
   * same code and statusCode the HTTP API answers with (src/errors/error-codes.ts), so a script and a
   * frontend branch on one list.
   */
  protected override async catch(err: Error & { exitCode?: number; oclif?: { exit?: number } }): Promise<unknown> {
    // this.exit() inside a command (or below) is not an error.
    if (err instanceof Errors.ExitError) throw err;
    const json = this.jsonEnabled() || (this.id !== 'serve' && commandHost().argv.includes('--json'));
    if (err instanceof ConfigError) {
      reportConfigError(err, this.id === 'serve', json);
      return this.exit(1);
    }
    if (err instanceof AppError) {
      reportAppError(err, json);
      return this.exit(1);
    }
    if (err instanceof Errors.CLIError || err.oclif) {
      // oclif's top-level handler prints it and exits with its code (as super.catch() would leave it,
      // without setting the exit code of a process that may not be the command's own).
      if (!json) throw err;
      return this.exit(reportOclifErrorAsJson(err));
    }
    if (json) writeJsonError({ code: 'failed', message: err.message });
    else commandHost().stderr.write(terminalSafeLines(`Chyba: ${err.message}\n`));
    return this.exit(1);
  }

  protected override async finally(err: Error | undefined): Promise<unknown> {
    await this.ctx?.close().catch(() => {});
    return super.finally(err);
  }
}

const SAFE_ACTOR = /^[A-Za-z0-9._@-]{1,64}$/;

/** `cli:<os user>`, or `cli:<admin> (os:<os user>)` when the systemd wrapper names the invoking admin. */
export function cliActor(claimed: string | undefined): string {
  let name = 'unknown';
  try {
    name = os.userInfo().username;
  } catch {
    /* containers may have no passwd entry for the uid */
  }
  if (!claimed || !SAFE_ACTOR.test(claimed) || claimed === name) return `cli:${name}`;
  return `cli:${claimed} (os:${name})`;
}
