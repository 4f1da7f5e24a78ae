import { AsyncLocalStorage } from 'node:async_hooks';
import type { Writable } from 'node:stream';
import winston from 'winston';
import { SYSLOG_PRIORITY } from './journal.js';

export interface RequestLogContext {
  requestId: string;
  /**
   * False once the response is over. Anything created during a request (a LISTEN client opened on first
   * use, its reconnect timers, a pool's sockets) keeps the request's async context for the rest of the
   * process: its later lines must not carry that request's id.
   */
  active: boolean;
}

/** Carries the request id through every await of a request, so every log line can name it. */
export const requestContext = new AsyncLocalStorage<RequestLogContext>();

const SECRET_KEY = /pass(word)?|secret|token|cookie|authorization|api[-_]?key|credential/i;
const REDACTED = '[REDACTED]';

/** Replaces the values of secret-looking keys at any depth. Bounded depth: logs must never hang on a cycle. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    out[key] = SECRET_KEY.test(key) ? REDACTED : redact(v, depth + 1);
  }
  return out;
}

const redactFormat = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (key === 'level' || key === 'message') continue;
    info[key] = SECRET_KEY.test(key) ? REDACTED : redact(info[key]);
  }
  const ctx = requestContext.getStore();
  if (ctx?.active && info.requestId === undefined) info.requestId = ctx.requestId;
  return info;
});

export type Logger = winston.Logger;

const MESSAGE = Symbol.for('message');

/** `<3>{"level":"error",...}`: journald strips the prefix and files the line under that priority. */
const syslogPrefixFormat = winston.format((info) => {
  const line = (info as unknown as Record<symbol, unknown>)[MESSAGE];
  (info as unknown as Record<symbol, unknown>)[MESSAGE] = `<${SYSLOG_PRIORITY[info.level] ?? 6}>${String(line)}`;
  return info;
});

export interface LoggerOptions {
  silent?: boolean;
  /** Every level to stderr (the CLI). */
  stderr?: boolean;
  /** sd-daemon(3) priority prefixes for journald (see LOG_FORMAT). */
  syslogPrefix?: boolean;
  /** Write here instead of the console (tests). */
  stream?: Writable;
}

/**
 * JSON lines for journald/log shippers. The CLI logs to stderr so that `--json` output on stdout
 * stays machine-readable.
 */
export function createLogger(level = 'info', options: LoggerOptions = {}): Logger {
  const levels = Object.keys(winston.config.npm.levels);
  const formats = [winston.format.timestamp(), redactFormat(), winston.format.json()];
  if (options.syslogPrefix) formats.push(syslogPrefixFormat());
  return winston.createLogger({
    level,
    silent: options.silent ?? false,
    format: winston.format.combine(...formats),
    transports: [options.stream ? new winston.transports.Stream({ stream: options.stream }) : new winston.transports.Console({ stderrLevels: options.stderr ? levels : [] })],
  });
}
