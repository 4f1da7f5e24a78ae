import { livenessData, readinessData } from '../health/health-responses.js';
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
        operationId: 'getLiveness',
        auth: 'none',
        summary: 'Liveness: the process answers',
        success: { status: 200, description: 'The process is up', body: 'data', data: livenessData },
      },
      {
        method: 'get',
        path: '/api/health/ready',
        operationId: 'getReadiness',
        auth: 'none',
        summary: 'Readiness: the database answers and every migration is applied',
        description:
          'Load balancers route on it; 503 in the error envelope while not ready: the database is not reachable yet (serve waits ' +
          'for it up to DATABASE_WAIT_SECONDS) or migrations are pending. data.version is the release, data.schema the newest ' +
          'applied migration.',
        success: { status: 200, description: 'Ready to serve', body: 'data', data: readinessData },
      },
      {
        method: 'get',
        path: metricsPath,
        operationId: 'getMetrics',
        auth: 'none',
        summary: 'Prometheus metrics (text exposition format)',
        description:
          'Only for clients in METRICS_ALLOW (loopback by default; the client IP follows TRUST_PROXY); others get 403, ' +
          'and METRICS_ALLOW=none answers 404. Not meant for the internet.',
        success: { status: 200, description: 'Metrics in the Prometheus text format 0.0.4', body: 'text', mediaType: 'text/plain; version=0.0.4' },
        errors: [403, 404],
      },
      {
        method: 'get',
        path: '/api/openapi.json',
        operationId: 'getOpenApiDocument',
        auth: 'none',
        summary: 'This OpenAPI 3.1 document',
        success: { status: 200, description: 'The document, generated from the zod schemas the routes validate with and answer', body: 'json' },
      },
    ],
  };
}
