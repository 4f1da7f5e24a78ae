import type { Router } from 'express';
import type { AppContext } from '../app/context.js';
import { createAuthMiddleware } from '../auth/auth-middleware.js';

/** Every area mounts its router here, under /api; all share one authentication middleware. */
export function mountApiRoutes(api: Router, ctx: AppContext): void {
  const auth = createAuthMiddleware(ctx.services.tokens, ctx.services.sessions);
  void auth;
}
