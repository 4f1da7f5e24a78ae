import cookieParser from 'cookie-parser';
import cors from 'cors';
import express, { type Express, type Router } from 'express';
import helmet from 'helmet';
import type { AppContext } from '../app/context.js';
import { createErrorHandler, notFoundHandler } from '../errors/error-handler.js';
import { createHealthRouter } from '../health/health-routes.js';
import { requestIdMiddleware } from './middleware/request-id.js';
import { mountApiRoutes } from './routes.js';

export function createApp(ctx: AppContext): Express {
  const { config, logger } = ctx;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');
  app.use(requestIdMiddleware(logger));
  // A JSON API serves no HTML: the strictest CSP, no cross-origin embedding.
  app.use(helmet({ contentSecurityPolicy: { directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } } }));
  if (config.corsOrigin) {
    app.use(cors({ origin: config.corsOrigin, credentials: true, maxAge: 600 }));
  }
  app.use(express.json({ limit: '100kb', strict: true }));
  app.use(cookieParser());

  const api: Router = express.Router();
  api.use('/health', createHealthRouter(ctx.db.sequelize));
  mountApiRoutes(api, ctx);
  api.use(notFoundHandler);
  app.use('/api', api);
  app.use(notFoundHandler);
  app.use(createErrorHandler(logger, config.isDevelopment && config.errorStacks));
  return app;
}
