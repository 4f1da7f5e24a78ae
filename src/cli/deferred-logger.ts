import { createRequire } from 'node:module';
import type { Logger, LoggerOptions } from '../logging/logger.js';
import type * as loggerExports from '../logging/logger.js';

type LoggerModule = typeof loggerExports;

const require = createRequire(import.meta.url);

/** src/logging/logger.ts, and winston with it, loaded synchronously when first needed (ADR 0124). */
export function loggerModule(): LoggerModule {
  return require('../logging/logger.js') as LoggerModule;
}

// winston's npm levels, most severe first (src/logging/logger.ts uses them).
const LEVELS: Record<string, number> = { error: 0, warn: 1, info: 2, http: 3, verbose: 4, debug: 5, silly: 6 };

/**
 * The logger of a one-shot crm-admin command: the same winston logger (src/logging/logger.ts), built
 * on the first line it actually writes. A command at CLI_LOG_LEVEL=warn usually writes none, and
 * loading winston and its streams was a tenth of a command's start. A call at a level below `level`
 * is dropped here, exactly as winston would drop it; anything else (a line it writes, child(), a
 * property) builds the real logger and goes to it.
 */
export function deferredLogger(level: string, options: LoggerOptions): Logger {
  let real: Logger | undefined;
  const logger = (): Logger => (real ??= loggerModule().createLogger(level, options));
  const threshold = LEVELS[level] ?? LEVELS.info;
  const proxy: Logger = new Proxy({} as Logger, {
    get(_target, key) {
      if (real === undefined && typeof key === 'string' && (LEVELS[key] ?? -1) > threshold) return () => proxy;
      const target = logger();
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return proxy;
}
