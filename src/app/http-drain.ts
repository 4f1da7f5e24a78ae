import type http from 'node:http';
import type { Logger } from '../logging/logger.js';

export interface Drainable {
  /**
   * Stops accepting connections and resolves once every connection is gone: requests in progress
   * finish (their responses say `Connection: close`), idle keep-alive sockets are closed at once.
   * After `forceAfterMs` whatever is still open is cut, so a stuck client cannot hold up the shutdown.
   */
  drain(forceAfterMs: number): Promise<void>;
}

/**
 * Graceful HTTP shutdown on top of node's server. server.close() alone stops listening and closes the
 * sockets idle at that instant, but a keep-alive socket whose request is still running becomes idle
 * later and would stay open until keepAliveTimeout, and its client could send another request on it.
 */
export function makeDrainable(server: http.Server, logger: Logger): Drainable {
  const inFlight = new Set<http.ServerResponse>();
  let draining = false;

  // Prepended: it must run before express, which may answer synchronously.
  server.prependListener('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    if (draining) res.setHeader('Connection', 'close');
    inFlight.add(res);
    res.once('close', () => {
      inFlight.delete(res);
      // A response whose headers went out before the drain began kept its keep-alive socket open.
      if (draining) server.closeIdleConnections();
    });
  });

  return {
    async drain(forceAfterMs) {
      draining = true;
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const force = setTimeout(() => {
        logger.warn('HTTP drain timed out; closing the remaining connections', { inFlight: inFlight.size });
        server.closeAllConnections();
      }, forceAfterMs);
      force.unref();
      await closed;
      clearTimeout(force);
    },
  };
}
