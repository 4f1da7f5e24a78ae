import { z } from 'zod';

/** data of GET /api/health (liveness). */
export const livenessData = z.object({ status: z.literal('ok'), uptimeSeconds: z.number().int().min(0) });

/** data of GET /api/health/ready (readiness). */
export const readinessData = z.object({ status: z.literal('ready') });

export type LivenessData = z.input<typeof livenessData>;
export type ReadinessData = z.input<typeof readinessData>;
