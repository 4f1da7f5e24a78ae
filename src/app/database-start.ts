import type { AppConfig } from '../config/config.js';
import { waitForDatabase } from '../db/database-wait.js';
import type { Logger } from '../logging/logger.js';
import { openWaitingListener } from './waiting-listener.js';

/**
 * Before `serve` opens its database: with DATABASE_URL (an external PostgreSQL that may boot later
 * than this service), hold the HTTP port with a listener that answers readiness 503 and wait for the
 * database up to DATABASE_WAIT_SECONDS. Resolves with the port the real server must listen on (the
 * one held, also when PORT=0). The embedded database is started by the service itself: no wait.
 */
export async function awaitDatabase(config: AppConfig, logger: Logger, options: { api: boolean; port?: number; host?: string }, signal: AbortSignal): Promise<number | undefined> {
  if (!config.databaseUrl) return options.port;
  const host = options.host ?? config.host;
  const listener = options.api ? await openWaitingListener(host, options.port ?? config.port) : undefined;
  try {
    await waitForDatabase({ url: config.databaseUrl, waitSeconds: config.databaseWaitSeconds, logger, signal });
  } finally {
    await listener?.close();
  }
  return listener?.port ?? options.port;
}
