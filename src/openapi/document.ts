import { z } from 'zod';
import {
  createDocument,
  type ZodOpenApiMediaTypeObject,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import { adminArea } from './admin-doc.js';
import { authArea } from './auth-doc.js';
import { dataEnvelope, errorResponses, listEnvelope, messageEnvelope, requestIdHeader, securitySchemes } from './components.js';
import { contactArea } from './contact-doc.js';
import { companyArea } from './company-doc.js';
import { searchArea } from './search-doc.js';
import { personArea } from './person-doc.js';
import { emailArea } from './email-doc.js';
import { emailAccountArea } from './email-account-doc.js';
import { privacyArea } from './privacy-doc.js';
import type { AreaDoc, ErrorStatus, RouteAuth, RouteDoc, SuccessDoc } from './route-doc.js';
import { systemArea } from './system-doc.js';
import { timesheetArea } from './timesheet-doc.js';
import { eventArea } from './event-doc.js';
import { userArea } from './lifecycle-doc.js';
import { signatureArea } from './signature-doc.js';
import { templateArea } from './template-doc.js';
import { draftArea } from './draft-doc.js';
import { scheduledEmailArea } from './scheduled-email-doc.js';
import { followUpArea } from './follow-up-doc.js';
import { taskArea } from './task-doc.js';
import { timelineArea } from './timeline-doc.js';
import { conversationArea } from './conversation-doc.js';
import { idempotencyKey } from '../sending/sending-schemas.js';
import { requiredScope } from '../api-tokens/api-token-scopes.js';
import { apiTokenArea } from './api-token-doc.js';
import { webhookArea, webhookCallbacks } from './webhook-doc.js';

export interface OpenApiOptions {
  metricsPath: string;
  version?: string;
  /** The `servers` entry; by default the server the document is served from. */
  serverUrl?: string;
}

/** Relative: the origin that serves /api/openapi.json (one document fits every deployment). */
const DEFAULT_SERVER = '/';

export function apiAreas(options: OpenApiOptions): AreaDoc[] {
  return [
    systemArea(options.metricsPath),
    authArea,
    adminArea,
    timesheetArea,
    emailAccountArea,
    contactArea,
    companyArea,
    searchArea,
    personArea,
    followUpArea,
    taskArea,
    timelineArea,
    conversationArea,
    emailArea,
    signatureArea,
    templateArea,
    draftArea,
    scheduledEmailArea,
    privacyArea,
    eventArea,
    userArea,
    apiTokenArea,
    webhookArea,
  ];
}

/** /api/timesheets/:id/download → /api/timesheets/{id}/download */
export function toOpenApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** The first sentence of every operation's description. */
const WHO: Record<RouteAuth, string> = {
  none: 'Public.',
  user: 'Signed-in users (accessToken cookie or Bearer).',
  admin: 'Admins only.',
  refresh: 'Holders of the refreshToken cookie.',
  userOrRefresh: 'Signed-in users (accessToken cookie or Bearer), or the holder of the refreshToken cookie alone.',
};

const SECURITY: Record<RouteAuth, Array<Record<string, string[]>>> = {
  none: [],
  user: [{ accessCookie: [] }, { bearer: [] }],
  admin: [{ accessCookie: [] }, { bearer: [] }],
  refresh: [{ refreshCookie: [] }],
  userOrRefresh: [{ accessCookie: [] }, { bearer: [] }, { refreshCookie: [] }],
};

/**
 * The scope an API token needs on this operation, or null when tokens may not call it: from the same
 * table the auth middleware enforces (src/api-tokens/api-token-scopes.ts). An admin route needs
 * `admin` too, whatever its area (the middleware's requireRole).
 */
function apiTokenScopes(route: RouteDoc): string[] | null {
  if (route.auth !== 'user' && route.auth !== 'admin') return null;
  const needed = requiredScope(route.path.replace(/^\/api/, ''), route.method.toUpperCase());
  if (needed === null) return null;
  const scopes = needed === 'identity' ? [] : [needed];
  if (route.auth === 'admin' && needed !== 'admin') scopes.push('admin');
  return scopes;
}

/**
 * Adds the API token to the operation's security where tokens may call it, and answers the sentence
 * the description gets. Scopes in a requirement belong to OAuth2 schemes: the token's are named in
 * `x-api-token-scopes` instead.
 */
function addApiToken(op: ZodOpenApiOperationObject, route: RouteDoc): string {
  const scopes = apiTokenScopes(route);
  if (!scopes) return route.auth === 'user' || route.auth === 'admin' ? 'Not with an API token.' : '';
  op.security = [...SECURITY[route.auth], { apiToken: [] }];
  op['x-api-token-scopes'] = scopes;
  return `API token: ${scopes.length ? scopes.join(' and ') : 'any scope'}.`;
}

/** The request header of every operation that takes one (sending), the same schema the route parses with. */
const idempotencyHeaders = z.object({
  'Idempotency-Key': idempotencyKey.optional().meta({
    description: 'Any 1-255 visible ASCII characters, e.g. a UUID per user action: the same key within 24 h answers the first result without sending again',
    example: '5b0f3e4c-2d7a-4f0e-9a51-7c3e1d2b8f60',
  }),
});

const replayedHeader = {
  'Idempotent-Replayed': z.literal('true').optional().meta({ description: 'Present when this answer is the stored result of an earlier request with the same Idempotency-Key' }),
};

const setCookieHeader = {
  'Set-Cookie': z.string().meta({
    description:
      'accessToken and/or refreshToken (HttpOnly, Path=/, SameSite=Lax; Secure and SameSite=Strict in production); ' +
      'an expired cookie clears it. Browsers store them; API clients use the tokens of the body instead.',
    example: 'accessToken=eyJhbGciOi...; Max-Age=3600; Path=/; HttpOnly; SameSite=Lax',
  }),
};

const contentDispositionHeader = {
  'Content-Disposition': z.string().meta({
    description: 'attachment with the file name (RFC 6266: an ASCII fallback and filename*=UTF-8)',
    example: 'attachment; filename="Vykaz 2026-03.pdf"; filename*=UTF-8\'\'V%C3%BDkaz%202026-03.pdf',
  }),
};

function successContent(route: RouteDoc, success: SuccessDoc = route.success): ZodOpenApiResponseObject {
  const headers = z.object({
    ...requestIdHeader,
    ...(route.setsCookies ? setCookieHeader : {}),
    ...(success.body === 'file' ? contentDispositionHeader : {}),
    ...(route.idempotent ? replayedHeader : {}),
  });
  const json = (schema: ZodOpenApiMediaTypeObject['schema']) => ({ description: success.description, headers, content: { 'application/json': { schema } } });
  switch (success.body) {
    case 'none':
      return { description: success.description, headers };
    case 'data':
      return json(dataEnvelope(success.data));
    case 'list':
      return json(listEnvelope(success.item));
    case 'message':
      return json(messageEnvelope);
    case 'json':
      return json({ type: 'object', description: 'An OpenAPI 3.1 document' });
    case 'text':
      return { description: success.description, headers, content: { [success.mediaType]: { schema: { type: 'string' } } } };
    case 'events':
      return { description: success.description, headers, content: { [success.mediaType]: { schema: success.events } } };
    case 'file': {
      const schema = { type: 'string' as const, format: 'binary' };
      return { description: success.description, headers, content: Object.fromEntries(success.mediaTypes.map((t) => [t, { schema }])) };
    }
  }
}

/**
 * The failures a route can answer: those of its kind, plus the ones its row names. Every operation
 * can answer 400 and 413 because the JSON body parser runs before routing (a malformed or oversized
 * JSON body is refused whatever the path), and 500.
 */
function errorStatuses(route: RouteDoc): Array<ErrorStatus | 500> {
  // The body parsers run before routing: a bad body is refused on any operation (400, 413, 415).
  const statuses = new Set<ErrorStatus | 500>([400, 413, 415, 500, ...(route.errors ?? [])]);
  if (route.auth !== 'none') {
    statuses.add(401);
    // Admin-only routes refuse members; every signed-in route refuses a user who must first change
    // the temporary password, and a cookie-authenticated cross-site write (docs/contract.md §3, §5).
    statuses.add(403);
  }
  // A write carrying the auth cookies from a foreign Origin is refused before anything else (csrf_rejected), login included.
  if (route.method !== 'get') statuses.add(403);
  if (route.params) statuses.add(404);
  // A write that loses a deadlock or serialization race in the database is rolled back whole: 409, try again.
  if (route.method !== 'get') statuses.add(409);
  // Every route but liveness reaches the database; an outage is a 503, never a 500.
  if (route.path !== '/api/health') statuses.add(503);
  return [...statuses].sort((a, b) => a - b);
}

function operation(route: RouteDoc, tag: string): ZodOpenApiOperationObject {
  const responses: ZodOpenApiResponsesObject = { [String(route.success.status)]: successContent(route) };
  // A second success of the same operation (a send with sendAt: 202 Accepted, scheduled).
  if (route.alsoSuccess) responses[`${route.alsoSuccess.status}`] = successContent(route, route.alsoSuccess);
  for (const status of errorStatuses(route)) responses[`${status}`] = errorResponses[status];
  const op: ZodOpenApiOperationObject = {
    operationId: route.operationId,
    tags: [tag],
    summary: route.summary,
    security: SECURITY[route.auth],
    responses,
  };
  op.description = [WHO[route.auth], addApiToken(op, route), route.description].filter(Boolean).join(' ');
  if (route.params || route.query || route.idempotent) {
    op.requestParams = {
      ...(route.params ? { path: route.params } : {}),
      ...(route.query ? { query: route.query } : {}),
      ...(route.idempotent ? { header: idempotencyHeaders } : {}),
    };
  }
  if (route.body) {
    const mediaType = route.multipart ? 'multipart/form-data' : 'application/json';
    const content = { [mediaType]: { schema: route.body }, ...(route.form ? { 'multipart/form-data': { schema: route.form } } : {}) };
    op.requestBody = { required: true, content };
  }
  return op;
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
      contact: { name: 'Staff CRM backend team (see docs/api.md in the repository)' },
      license: { name: 'Proprietary (UNLICENSED): internal use only', identifier: 'LicenseRef-Proprietary' },
      description:
        'HTTP/JSON API of the staff CRM. Successes: { success: true, data?, message }, where a single resource is ' +
        'data.<name> and a list is data.items + data.pagination; failures: the ErrorEnvelope, whose error.code is stable ' +
        '(branch on it, never on the Slovak message). Every response carries X-Request-Id. Authenticate with the ' +
        'accessToken cookie (browsers) or Authorization: Bearer.',
    },
    servers: [{ url: options.serverUrl ?? DEFAULT_SERVER, description: 'The CRM service that serves this document; every path starts with /api' }],
    tags: areas.map((a) => ({ name: a.tag, description: a.description })),
    paths,
    webhooks: webhookCallbacks,
    components: { securitySchemes },
  });
}
