import crypto from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { requestContext, type Logger, type RequestLogContext } from '../../logging/logger.js';

const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The path the client asked for, whatever router the request ended in (req.path is relative to the mount). */
export function originalPath(req: Request): string {
  const url = req.originalUrl || req.url;
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/**
 * Gives every request an id (a proxy's X-Request-Id when sane), echoes it, and logs the outcome.
 *
 * The id reaches log lines through an AsyncLocalStorage context, which everything created during the
 * request inherits for good: a LISTEN client opened on first use, its reconnect timers, pooled sockets.
 * The context is therefore switched off when the response is over, so that those long-lived things log
 * without an id instead of with the id of whichever request happened to create them.
 */
export function requestIdMiddleware(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    const requestId = incoming && SAFE_ID.test(incoming) ? incoming : crypto.randomUUID();
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    const context: RequestLogContext = { requestId, active: true };
    res.on('finish', () => {
      // The line is usually below LOG_LEVEL: not built at all then (winston would build, pass and drop it).
      if (!logger.isLevelEnabled('http')) return;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.http('request', { requestId, method: req.method, path: originalPath(req), status: res.statusCode, ms: Math.round(ms * 10) / 10 });
    });
    res.on('close', () => {
      context.active = false;
      // The client hung up, or a shutdown had to cut the connection: the response never fully went out.
      if (!res.writableFinished) logger.info('request aborted before its response ended', { requestId, method: req.method, path: originalPath(req) });
    });
    requestContext.run(context, next);
  };
}
