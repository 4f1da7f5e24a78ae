import { z } from 'zod';

/** data of GET /api/health (liveness). */
export const livenessData = z.object({ status: z.literal('ok'), uptimeSeconds: z.number().int().min(0) });

/** data of GET /api/health/ready (readiness). */
export const readinessData = z.object({
  status: z.literal('ready'),
  warnings: z.array(z.string()).meta({ description: 'Configuration an operator should fix (e.g. TRUST_PROXY behind a proxy); empty when all is well' }),
});

export type LivenessData = z.input<typeof livenessData>;
export type ReadinessData = z.input<typeof readinessData>;
