import type { Express } from 'express';
import helmet from 'helmet';
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
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
      },
      xFrameOptions: { action: 'deny' },
    }),
  );
  return proxyCheck;
}
