import { z } from 'zod';
import type { ZodOpenApiResponseObject, ZodOpenApiSecuritySchemeObject } from 'zod-openapi';
import { ERROR_CODES, type ErrorCode } from '../errors/error-codes.js';
import { listOf } from '../shared/response-fields.js';
import type { ErrorStatus } from './route-doc.js';

/** Field problems (validation_failed, recipient_rejected, attachment_not_allowed). */
const fieldProblems = z
  .array(
    z.object({
      field: z.string().nullable().meta({ description: 'The field (dotted path), or null for the request as a whole' }),
      message: z.string().meta({ description: 'Slovak, for people' }),
    }),
  )
  .meta({ id: 'FieldProblems' });

/** csrf_rejected: what the CSRF check compared (src/auth/request-guard-middleware.ts). */
const csrfRejection = z
  .object({
    reason: z.enum(['origin_mismatch', 'origin_not_http', 'cross_site_request']).meta({
      description:
        'origin_mismatch: Origin is neither this host nor in CORS_ORIGIN; origin_not_http: Origin null or not http(s); cross_site_request: no Origin and Sec-Fetch-Site cross-site',
    }),
    origin: z.string().nullable().meta({ description: 'The Origin header as sent' }),
    host: z.string().nullable().meta({ description: 'The host the Origin was compared with' }),
    hostFrom: z.enum(['Host', 'X-Forwarded-Host']).meta({ description: 'X-Forwarded-Host only when TRUST_PROXY > 0; a proxy that rewrites Host without it makes every POST fail' }),
    trustProxy: z.number().int().meta({ description: 'TRUST_PROXY as configured' }),
    corsOrigins: z.array(z.string()).meta({ description: 'CORS_ORIGIN as configured' }),
  })
  .meta({ id: 'CsrfRejection' });

/** shared_account_owner: the accounts to hand over first. */
const sharedAccountOwner = z.object({ sharedAccounts: z.array(z.object({ emailAccountId: z.string() }).loose()) }).meta({ id: 'SharedAccountOwnerDetails' });

/** A send the mail server failed (src/sending/failed-send.ts, KEEPS_DRAFT): the draft that holds what was typed. */
const keptDraft = z
  .object({
    draftId: z.uuid().meta({ description: 'The server draft holding the recipients, subject, text and HTML of the failed send (GET /api/drafts/{id}); attachments are not kept' }),
  })
  .meta({ id: 'KeptDraftDetails' });

const FIELD_CODES = ['validation_failed', 'recipient_rejected', 'attachment_not_allowed'] as const satisfies ErrorCode[];
const DRAFT_CODES = ['submission_refused', 'upstream_unavailable', 'upstream_timeout', 'mail_quota_exceeded'] as const satisfies ErrorCode[];
const DETAILED_CODES: readonly ErrorCode[] = [...FIELD_CODES, ...DRAFT_CODES, 'csrf_rejected', 'shared_account_owner'];
const OTHER_CODES = (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => !DETAILED_CODES.includes(code)) as [ErrorCode, ...ErrorCode[]];

const errorCommon = {
  message: z.string().meta({ description: 'Slovak, for people', example: 'Neautorizovaný prístup' }),
  statusCode: z.number().int().meta({ example: 401 }),
  stack: z.string().optional().meta({ description: 'Only with NODE_ENV=development and ERROR_STACKS=true' }),
};

const codeDescription = `Stable, for programs: branch on this, never on the message.\n\n${Object.entries(ERROR_CODES)
  .map(([code, { status, description }]) => `- \`${code}\` (${status}): ${description}`)
  .join('\n')}`;

/**
 * The error object, one variant per shape of `details`, told apart by `code`: a generated client
 * narrows `details` by checking `code`.
 */
const errorObject = z
  .union([
    z.object({ ...errorCommon, code: z.enum(FIELD_CODES), details: fieldProblems.optional() }),
    z.object({
      ...errorCommon,
      code: z.enum(DRAFT_CODES),
      details: keptDraft.optional().meta({ description: 'Sending (compose, reply, draft send): the draft that keeps the text; absent elsewhere' }),
    }),
    z.object({ ...errorCommon, code: z.literal('csrf_rejected'), details: csrfRejection }),
    z.object({ ...errorCommon, code: z.literal('shared_account_owner'), details: sharedAccountOwner }),
    z.object({ ...errorCommon, code: z.enum(OTHER_CODES), details: z.unknown().optional().meta({ description: 'None for these codes' }) }),
  ])
  .meta({ id: 'ApiError', description: codeDescription });

/** The error envelope of docs/contract.md §7; every failure of every route has this shape. */
export const errorEnvelope = z
  .object({ success: z.literal(false), error: errorObject })
  .meta({ id: 'ErrorEnvelope', description: 'Every failure: the error envelope (docs/contract.md §7)' });

/** Every JSON success with a result: `data` holds it (schema per operation), `message` is Slovak. */
export function dataEnvelope(data: z.ZodType) {
  return z.object({ success: z.literal(true), data, message: z.string().meta({ description: 'Slovak, for people' }) });
}

/** A page of a list (docs/contract.md §8: limit default 50, at most 100). */
export function listEnvelope(item: z.ZodType) {
  return dataEnvelope(listOf(item));
}

export const messageEnvelope = z
  .object({ success: z.literal(true), message: z.string().meta({ description: 'Slovak, for people', example: 'Odhlásenie úspešné' }) })
  .meta({ id: 'MessageEnvelope', description: 'A success without data' });

/** On every response, successes and failures alike: quote it when reporting a problem. */
export const requestIdHeader = {
  'X-Request-Id': z.string().meta({
    description: "The request's id (the caller's own X-Request-Id when it is 1-64 characters of A-Z a-z 0-9 . _ -); in the server log",
    example: '4f7c2a0e-3b1d-4c55-9a8e-2d6f0b1e9c3a',
  }),
};

const retryAfter = { 'Retry-After': z.string().meta({ description: 'Seconds until a retry can succeed', example: '900' }) };

function errorResponse(id: string, description: string, headers: Record<string, z.ZodType> = {}): ZodOpenApiResponseObject {
  return {
    id,
    description,
    headers: z.object({ ...requestIdHeader, ...headers }),
    content: { 'application/json': { schema: errorEnvelope } },
  };
}

/** Registered once under components.responses and referenced by every operation. */
export const errorResponses: Record<ErrorStatus | 500, ZodOpenApiResponseObject> = {
  400: errorResponse(
    'BadRequest',
    'ValidationError or BadRequestError: the input was rejected (details name the fields), or the body is not valid JSON ' + '(any operation: the JSON parser runs before routing)',
  ),
  401: errorResponse('Unauthorized', 'AuthenticationError: no valid credentials'),
  403: errorResponse('Forbidden', 'ForbiddenError: signed in, but not allowed (error.code says why)'),
  404: errorResponse('NotFound', "NotFoundError: no such resource, or another user's"),
  409: errorResponse('Conflict', 'ConflictError: a duplicate, the last admin, or a concurrent change (try again)'),
  413: errorResponse('PayloadTooLarge', 'The body (JSON: 100 kB, any operation) or the uploaded file (10 MB) is over its limit'),
  415: errorResponse('UnsupportedMediaType', 'A body that is not JSON where JSON is expected, or an unsupported charset or encoding (any operation)'),
  429: errorResponse('TooManyRequests', 'RateLimitError: throttled', retryAfter),
  500: errorResponse('InternalError', "'Interná chyba servera', no internals"),
  502: errorResponse('BadGateway', 'The mail (JMAP) server could not be reached or answered wrongly'),
  503: errorResponse('ServiceUnavailable', 'The database (or the JMAP configuration) is unavailable', retryAfter),
  504: errorResponse('GatewayTimeout', 'The mail (JMAP) server timed out'),
  507: errorResponse(
    'InsufficientStorage',
    'mail_quota_exceeded: the mailbox is over its quota; insufficient_storage: the disk is down to the free-space reserve kept for the database',
  ),
};

export const securitySchemes: Record<string, ZodOpenApiSecuritySchemeObject> = {
  accessCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'accessToken',
    description: 'HttpOnly cookie set by login and refresh (1 h); named `__Host-accessToken` when NODE_ENV=production',
  },
  bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'The same access token in `Authorization: Bearer <token>` (API clients)',
  },
  apiToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'crm_pat_ API token',
    description:
      'A personal API token (POST /api/tokens) in `Authorization: Bearer crm_pat_...`, no refresh needed. The names in an ' +
      "operation's x-api-token-scopes (and its description) name the scopes it needs (write includes read); an operation without apiToken refuses tokens (403 api_token_not_allowed)",
  },
  refreshCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'refreshToken',
    description: 'HttpOnly cookie set by login with rememberMe (7 days); only POST /api/auth/refresh (and logout) reads it; named `__Host-refreshToken` when NODE_ENV=production',
  },
};
