import type { Router } from 'express';
import type { AppContext } from '../app/context.js';

/** Every area mounts its router here, under /api. */
export function mountApiRoutes(_api: Router, _ctx: AppContext): void {}
