import type { Sequelize } from 'sequelize';
import type { Logger } from '../logging/logger.js';

export interface ConnectionWatch {
  stop(): void;
}

/**
 * A running service's view of its database between requests: one `SELECT 1` every few seconds, one
 * warning when it stops answering and one "database reconnected" line when it answers again, so an
 * outage has a start and an end in the log even when no request happened to meet it.
 */
export function watchConnection(sequelize: Sequelize, logger: Logger, everyMs = 5_000): ConnectionWatch {
  let lostSince: number | undefined;
  let checking = false;
  const check = async () => {
    if (checking) return;
    checking = true;
    try {
      await sequelize.query('SELECT 1');
      if (lostSince !== undefined) logger.info('database reconnected', { downSeconds: Math.round((Date.now() - lostSince) / 1000) });
      lostSince = undefined;
    } catch (err) {
      if (lostSince === undefined) {
        lostSince = Date.now();
        logger.warn('database connection lost; the service answers 503 until it is back', { reason: err instanceof Error ? err.message : String(err) });
      }
    } finally {
      checking = false;
    }
  };
  const timer = setInterval(() => void check(), everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
