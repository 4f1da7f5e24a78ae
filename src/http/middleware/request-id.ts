import crypto from 'node:crypto';
import type { RequestHandler } from 'express';
import { requestContext, type Logger } from '../../logging/logger.js';

const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Gives every request an id (a proxy's X-Request-Id when sane), echoes it, and logs the outcome. */
export function requestIdMiddleware(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    const requestId = incoming && SAFE_ID.test(incoming) ? incoming : crypto.randomUUID();
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.http('request', { requestId, method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 });
    });
    res.on('close', () => {
      // The client hung up, or a shutdown had to cut the connection: the response never fully went out.
      if (!res.writableFinished) logger.info('request aborted before its response ended', { requestId, method: req.method, path: req.path });
    });
    requestContext.run({ requestId }, next);
  };
}
