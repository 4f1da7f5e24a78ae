import express, { type Express } from 'express';
import type { AppContext } from './context.js';
import { createErrorHandler } from '../http/error-handler.js';
import { methodNotAllowed, routeNotFound } from '../http/route-fallback.js';
import { createHealthRouter } from '../health/health-routes.js';
import { metricsEndpoint } from '../metrics/metrics-http.js';
import { mountHttpHead } from './http-head.js';

/**
 * What a sync worker (`serve --no-api`) answers on PORT: liveness, readiness and the metrics endpoint,
 * so that a load balancer, systemd or Prometheus can see it. Everything else is the spec's 404
 * envelope: a worker serves no API, no login, no session cookie.
 */
export function createWorkerApp(ctx: AppContext): Express {
  const { config, logger } = ctx;
  const app = express();
  app.disable('x-powered-by');
  const proxyCheck = mountHttpHead(app, ctx);
  app.use(methodNotAllowed(app.router));
  app.get(config.metricsPath, metricsEndpoint(ctx.services.metrics, { allow: config.metricsAllow, trustProxy: config.trustProxy }));
  const api = express.Router();
  api.use('/health', createHealthRouter(ctx.db.sequelize, { warnings: () => proxyCheck.warnings() }));
  app.use('/api', api);
  app.use(routeNotFound);
  app.use(createErrorHandler(logger, false));
  return app;
}
