import type { Express, RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';
import type { AppContext } from './context.js';
import { httpMetricsMiddleware } from '../metrics/metrics-http.js';
import { requestIdMiddleware } from '../http/middleware/request-id.js';
import { ProxyHeaderCheck } from './proxy-check.js';

/**
 * What every HTTP listener of the program does first, the API and a sync worker's health listener
 * alike: proxy trust, plain query strings, request metrics and ids, the proxy-header check and the
 * security headers. One place, so a worker can never answer with weaker headers than the API.
 */
export function mountHttpHead(app: Express, ctx: AppContext): ProxyHeaderCheck {
  const { config, logger } = ctx;
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');
  app.use(httpMetricsMiddleware(ctx.services.metrics));
  app.use(requestIdMiddleware(logger));
  const proxyCheck = new ProxyHeaderCheck(config.trustProxy, logger);
  app.use(proxyCheck.middleware);
  // A JSON API serves no HTML: a CSP that allows nothing (helmet's defaults are for pages: script-src
  // 'self', style-src ...), and no framing anywhere. HSTS (helmet's default) only counts behind TLS.
  app.use(
    fixedHelmetHeaders({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
      },
      xFrameOptions: { action: 'deny' },
    }),
  );
  return proxyCheck;
}

/**
 * helmet's headers for these options, worked out once at start: none of them depends on the request
 * (no CSP nonce, no directive computed per request), so its twelve middlewares set the same values on
 * every answer, and running them per request was a measurable part of a small API call (issue 51).
 * helmet still decides every header and value; should one ever depend on the request (or helmet touch
 * anything but setHeader/removeHeader), the capture throws and the program does not start.
 */
export function fixedHelmetHeaders(options: Readonly<HelmetOptions>): RequestHandler {
  const set = new Map<string, string>();
  const removed: string[] = [];
  const refuse = (what: string) => {
    throw new Error(`helmet used ${what} while its headers were captured: they may depend on the request`);
  };
  const req = new Proxy({}, { get: (_t, key) => refuse(`req.${String(key)}`) });
  const res = new Proxy(
    {
      setHeader: (name: string, value: unknown) => void set.set(name, String(value)),
      removeHeader: (name: string) => void removed.push(name),
    },
    { get: (target, key) => (key === 'setHeader' || key === 'removeHeader' ? target[key] : refuse(`res.${String(key)}`)) },
  );
  let done = false;
  helmet(options)(req as never, res as never, (err?: unknown) => {
    if (err) throw err instanceof Error ? err : new Error('helmet failed while its headers were captured');
    done = true;
  });
  if (!done) throw new Error('helmet did not finish synchronously while its headers were captured');
  const headers = [...set];
  return (_req, response, next) => {
    for (const name of removed) response.removeHeader(name);
    for (const [name, value] of headers) response.setHeader(name, value);
    next();
  };
}
