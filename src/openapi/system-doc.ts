import type { AreaDoc } from './route-doc.js';

/** Probes, metrics and this document. The metrics path is configurable (METRICS_PATH). */
export function systemArea(metricsPath: string): AreaDoc {
  return {
    tag: 'system',
    description: 'Health probes, Prometheus metrics and this OpenAPI document',
    routes: [
      {
        method: 'get',
        path: '/api/health',
        auth: 'none',
        summary: 'Liveness: the process answers',
        success: { status: 200, description: "data = { status: 'ok', uptimeSeconds }", body: 'data' },
      },
      {
        method: 'get',
        path: '/api/health/ready',
        auth: 'none',
        summary: 'Readiness: the database answers and every migration is applied',
        description: 'Load balancers route on it; 503 in the error envelope while not ready.',
        success: { status: 200, description: "data = { status: 'ready', warnings: string[] } (configuration an operator should fix, e.g. TRUST_PROXY behind a proxy)", body: 'data' },
        errors: [503],
      },
      {
        method: 'get',
        path: metricsPath,
        auth: 'none',
        summary: 'Prometheus metrics (text exposition format)',
        description:
          'Only for clients in METRICS_ALLOW (loopback by default; the client IP follows TRUST_PROXY); others get 403, ' +
          'and METRICS_ALLOW=none answers 404. Not meant for the internet.',
        success: { status: 200, description: 'Metrics in the Prometheus text format 0.0.4', body: 'text', mediaTypes: ['text/plain; version=0.0.4'] },
        errors: [403, 404],
      },
      {
        method: 'get',
        path: '/api/openapi.json',
        auth: 'none',
        summary: 'This OpenAPI 3.1 document',
        success: { status: 200, description: 'The document, generated from the zod schemas the routes validate with', body: 'json' },
      },
    ],
  };
}
