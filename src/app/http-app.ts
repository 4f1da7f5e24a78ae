import cookieParser from 'cookie-parser';
import cors from 'cors';
import express, { type Express, type RequestHandler, type Router } from 'express';
import type { AppContext } from './context.js';
import { createErrorHandler } from '../http/error-handler.js';
import { methodNotAllowed, routeNotFound } from '../http/route-fallback.js';
import { AuthCookies } from '../auth/cookies.js';
import { auditUnreadableLogin } from '../auth/auth-routes.js';
import { csrfGuard, rejectDuplicateAuthCookies } from '../auth/request-guard-middleware.js';
import { createHealthRouter } from '../health/health-routes.js';
import { metricsEndpoint } from '../metrics/metrics-http.js';
import { mountApiRoutes } from './api-routes.js';
import { mountHttpHead } from './http-head.js';

export interface AppOptions {
  /** Run before everything else, on every request: the test suite's OpenAPI response check. */
  observers?: RequestHandler[];
}

export function createApp(ctx: AppContext, options: AppOptions = {}): Express {
  const { config, logger } = ctx;
  ctx.services.hasher.warmUp();
  const app = express();
  app.disable('x-powered-by');
  // No ETag: every authenticated answer is no-store (nothing revalidates it), and hashing each body
  // (SHA-1 of the JSON) was the largest single cost of a GET /api/auth/me (ADR 0113).
  app.set('etag', false);
  for (const observer of options.observers ?? []) app.use(observer);
  const proxyCheck = mountHttpHead(app, ctx);
  if (config.corsOrigins.length > 0) app.use(corsForOrigins(config.corsOrigins));
  // Cookies are judged before any body is read: a planted duplicate or a cross-site request is
  // refused without parsing a byte of what it sent.
  const cookies = new AuthCookies(config.isProduction);
  // Auth answers carry tokens and personal data: never stored by a browser or proxy cache, the
  // refusals below (CSRF, duplicate cookies, malformed JSON, 405) included.
  app.use('/api/auth', noStore);
  app.use(cookieParser());
  app.use(rejectDuplicateAuthCookies(cookies), csrfGuard(cookies, { corsOrigins: config.corsOrigins, trustProxy: config.trustProxy }));
  // A known path with a wrong method: 405 with Allow, before any body is read or anyone authenticated.
  app.use(methodNotAllowed(app.router));
  app.use(express.json({ limit: '100kb', strict: true }));
  app.use('/api/auth/login', auditUnreadableLogin(ctx.services.auth));

  // Outside the /api router so that METRICS_PATH may also be a path like /metrics.
  app.get(config.metricsPath, metricsEndpoint(ctx.services.metrics, { allow: config.metricsAllow, trustProxy: config.trustProxy }));

  const api: Router = express.Router();
  api.use('/health', createHealthRouter(ctx.db.sequelize, { warnings: () => proxyCheck.warnings() }));
  mountApiRoutes(api, ctx, cookies);
  app.use('/api', api);
  app.use(routeNotFound);
  app.use(createErrorHandler(logger, config.isDevelopment && config.errorStacks));
  return app;
}

const noStore: RequestHandler = (_req, res, next) => {
  res.set('Cache-Control', 'no-store');
  next();
};

/**
 * Only the configured frontend origins get CORS headers (with credentials: the cookies), each its
 * own origin echoed; any other origin gets none at all. cors() given a plain string would answer
 * every origin with that string.
 */
function corsForOrigins(configured: readonly string[]) {
  const allowed = new Set(configured.map((o) => new URL(o).origin));
  const allowCors = cors({
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
    credentials: true,
    maxAge: 600,
    // Read by the frontend: throttling delay, support reference, download file name, a replayed send.
    exposedHeaders: ['Retry-After', 'X-Request-Id', 'Content-Disposition', 'Idempotent-Replayed'],
  });
  return (req: express.Request, res: express.Response, next: express.NextFunction) => {
    // Answers differ by Origin, allowed or not: caches must key on it.
    res.vary('Origin');
    allowCors(req, res, next);
  };
}
