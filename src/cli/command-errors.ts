import { Errors } from '@oclif/core';
import type { ConfigError } from '../config/config.js';
import type { AppError } from '../errors/app-errors.js';
import { syslogPrefixFromEnv } from '../logging/journal.js';
import { commandHost } from './command-host.js';
import { loggerModule } from './deferred-logger.js';
import { terminalSafeJson, terminalSafeLines } from './format.js';

/**
 * How a crm-admin command reports what made it fail (BaseCommand.catch), on its host's stderr: human
 * text, or with --json one JSON object `{"error":{"code":...,"message":...,"statusCode"?:...,
 * "details"?:...}}`.
 */
export function reportConfigError(err: ConfigError, serve: boolean, json: boolean): void {
  if (serve) {
    // The service's start failures are each one JSON line in its log (journald), this one too.
    loggerModule()
      .createLogger('error', { syslogPrefix: syslogPrefixFromEnv() })
      .error(`start failed: invalid configuration: ${err.problems.join('; ')}`, { problems: err.problems });
  } else if (json) {
    writeJsonError({ code: 'invalid_configuration', message: 'Neplatná konfigurácia', details: err.problems });
  } else {
    commandHost().stderr.write(`${err.message}\n`);
  }
}

export function reportAppError(err: AppError, json: boolean): void {
  if (json) {
    writeJsonError({ code: err.code, message: err.message, statusCode: err.statusCode, details: err.details });
  } else {
    commandHost().stderr.write(terminalSafeLines(`Chyba: ${err.message}${err.details ? `\n${JSON.stringify(err.details, null, 2)}` : ''}\n`));
  }
}

/** An oclif error (a parse error, a missing argument, this.error()) as JSON; answers the exit code. */
export function reportOclifErrorAsJson(err: Error & { oclif?: { exit?: number } }): number {
  const usage = err instanceof Errors.CLIError && ('parse' in err || err.oclif?.exit === 2);
  writeJsonError({ code: usage ? 'usage' : 'failed', message: err.message.replace(/\nSee more help with --help$/, '') });
  return usage ? 2 : (err.oclif?.exit ?? 1);
}

export function writeJsonError(error: { code: string; message: string; statusCode?: number; details?: unknown }): void {
  const out: Record<string, unknown> = { code: error.code, message: error.message };
  if (error.statusCode !== undefined) out.statusCode = error.statusCode;
  if (error.details !== undefined) out.details = error.details;
  commandHost().stderr.write(`${terminalSafeJson({ error: out }, 0)}\n`);
}
