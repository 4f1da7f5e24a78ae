import { AsyncLocalStorage } from 'node:async_hooks';
import winston from 'winston';

/** Carries the request id through every await of a request, so every log line can name it. */
export const requestContext = new AsyncLocalStorage<{ requestId: string }>();

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
  if (ctx && info.requestId === undefined) info.requestId = ctx.requestId;
  return info;
});

export type Logger = winston.Logger;

/**
 * JSON lines for journald/log shippers. The CLI logs to stderr so that `--json` output on stdout
 * stays machine-readable.
 */
export function createLogger(level = 'info', options: { silent?: boolean; stderr?: boolean } = {}): Logger {
  const levels = Object.keys(winston.config.npm.levels);
  return winston.createLogger({
    level,
    silent: options.silent ?? false,
    format: winston.format.combine(winston.format.timestamp(), redactFormat(), winston.format.json()),
    transports: [new winston.transports.Console({ stderrLevels: options.stderr ? levels : [] })],
  });
}
