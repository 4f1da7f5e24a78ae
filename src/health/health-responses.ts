import { z } from 'zod';

/** data of GET /api/health (liveness). */
export const livenessData = z.object({ status: z.literal('ok'), uptimeSeconds: z.number().int().min(0) });

/** data of GET /api/health/ready (readiness). */
export const readinessData = z.object({
  status: z.literal('ready'),
  version: z.string().meta({ description: "This release's semantic version (the same as `crm-admin --version` and the metrics build info)", example: '0.2.0' }),
  schema: z.string().meta({ description: "The newest applied migration's name: the database schema's version", example: '0023-idempotency-body-hash' }),
  warnings: z.array(z.string()).meta({ description: 'Configuration an operator should fix (e.g. TRUST_PROXY behind a proxy); empty when all is well' }),
});

export type LivenessData = z.input<typeof livenessData>;
export type ReadinessData = z.input<typeof readinessData>;
