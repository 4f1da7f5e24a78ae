import { z } from 'zod';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import { adminArea } from './admin-doc.js';
import { authArea } from './auth-doc.js';
import { errorResponses, listEnvelope, messageEnvelope, securitySchemes, successEnvelope } from './components.js';
import { contactArea } from './contact-doc.js';
import { emailArea } from './email-doc.js';
import { emailAccountArea } from './email-account-doc.js';
import type { AreaDoc, ErrorStatus, RouteAuth, RouteDoc } from './route-doc.js';
import { systemArea } from './system-doc.js';
import { timesheetArea } from './timesheet-doc.js';

export interface OpenApiOptions {
  metricsPath: string;
  version?: string;
}

export function apiAreas(options: OpenApiOptions): AreaDoc[] {
  return [systemArea(options.metricsPath), authArea, adminArea, timesheetArea, emailAccountArea, contactArea, emailArea];
}

/** /api/timesheets/:id/download → /api/timesheets/{id}/download */
export function toOpenApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

const SECURITY: Record<RouteAuth, Array<Record<string, string[]>>> = {
  none: [],
  user: [{ accessCookie: [] }, { bearer: [] }],
  admin: [{ accessCookie: [] }, { bearer: [] }],
  refresh: [{ refreshCookie: [] }],
};

function successContent(route: RouteDoc): ZodOpenApiResponseObject {
  const { success } = route;
  switch (success.body) {
    case 'data': {
      const schema = success.schema ? successEnvelope.extend({ data: success.schema }) : successEnvelope;
      return { description: success.description, content: { 'application/json': { schema } } };
    }
    case 'list': {
      const schema = success.schema ? listEnvelope.extend({ data: listEnvelope.shape.data.extend({ items: z.array(success.schema) }) }) : listEnvelope;
      return { description: success.description, content: { 'application/json': { schema } } };
    }
    case 'message':
      return { description: success.description, content: { 'application/json': { schema: messageEnvelope } } };
    case 'json':
      return { description: success.description, content: { 'application/json': { schema: { type: 'object' } } } };
    case 'text':
    case 'file': {
      const schema = success.body === 'file' ? { type: 'string' as const, format: 'binary' } : { type: 'string' as const };
      const types = success.mediaTypes ?? [success.body === 'file' ? 'application/octet-stream' : 'text/plain'];
      return { description: success.description, content: Object.fromEntries(types.map((t) => [t, { schema }])) };
    }
  }
}

/** The failures a route has by its kind, plus the ones its row names. */
function errorStatuses(route: RouteDoc): Array<ErrorStatus | 500> {
  const statuses = new Set<ErrorStatus | 500>(route.errors ?? []);
  if (route.body || route.query || route.params) statuses.add(400);
  if (route.auth !== 'none') statuses.add(401);
  if (route.auth === 'admin') statuses.add(403);
  if (route.params) statuses.add(404);
  statuses.add(500);
  // Every route but liveness reaches the database; an outage is a 503, never a 500.
  if (route.path !== '/api/health') statuses.add(503);
  return [...statuses].sort((a, b) => a - b);
}

function operation(route: RouteDoc, tag: string): ZodOpenApiOperationObject {
  const responses: ZodOpenApiResponsesObject = { [String(route.success.status)]: successContent(route) };
  for (const status of errorStatuses(route)) responses[`${status}`] = errorResponses[status];
  const op: ZodOpenApiOperationObject = {
    operationId: operationId(route),
    tags: [tag],
    summary: route.summary,
    security: SECURITY[route.auth],
    responses,
  };
  const description = [route.auth === 'admin' ? 'Admins only.' : undefined, route.description].filter(Boolean).join(' ');
  if (description) op.description = description;
  if (route.params || route.query) {
    op.requestParams = { ...(route.params ? { path: route.params } : {}), ...(route.query ? { query: route.query } : {}) };
  }
  if (route.body) {
    const mediaType = route.multipart ? 'multipart/form-data' : 'application/json';
    op.requestBody = { required: true, content: { [mediaType]: { schema: route.body } } };
  }
  return op;
}

/** get /api/timesheets/:id/download → getApiTimesheetsIdDownload */
function operationId(route: RouteDoc): string {
  const words = route.path.split(/[/:._-]+/).filter(Boolean);
  return route.method + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

/**
 * The OpenAPI 3.1 document of the whole API, generated from the route tables of every area, whose
 * schemas are the ones the routes validate with.
 */
export function buildOpenApiDocument(options: OpenApiOptions): ReturnType<typeof createDocument> {
  const areas = apiAreas(options);
  const paths: ZodOpenApiPathsObject = {};
  for (const area of areas) {
    for (const route of area.routes) {
      const item = (paths[toOpenApiPath(route.path)] ??= {});
      item[route.method] = operation(route, area.tag);
    }
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Staff CRM API',
      version: options.version ?? '0.1.0',
      description:
        'HTTP/JSON API of the staff CRM. Successes: { success: true, data?, message }; failures: the ErrorEnvelope. ' +
        'Messages are Slovak. Authenticate with the accessToken cookie (browsers) or Authorization: Bearer.',
    },
    tags: areas.map((a) => ({ name: a.tag, description: a.description })),
    paths,
    components: { securitySchemes },
  });
}
