import { z } from 'zod';
import type { ZodOpenApiResponseObject, ZodOpenApiSecuritySchemeObject } from 'zod-openapi';
import { ERROR_CODES, type ErrorCode } from '../errors/error-codes.js';
import type { ErrorStatus } from './route-doc.js';

/** The error envelope of spec section 7; every failure of every route has this shape. */
export const errorEnvelope = z
  .object({
    success: z.literal(false),
    error: z.object({
      message: z.string().meta({ description: 'Slovak, for people', example: 'Neautorizovaný prístup' }),
      statusCode: z.number().int().meta({ example: 401 }),
      code: z
        .enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]])
        .meta({
          description: `Stable, for programs: branch on this, never on the message.\n\n${Object.entries(ERROR_CODES)
            .map(([code, { status, description }]) => `- \`${code}\` (${status}): ${description}`)
            .join('\n')}`,
          example: 'authentication_required',
        }),
      details: z.unknown().optional().meta({ description: 'Field problems of a ValidationError: [{ field, message }]' }),
      stack: z.string().optional().meta({ description: 'Only with NODE_ENV=development and ERROR_STACKS=true' }),
    }),
  })
  .meta({ id: 'ErrorEnvelope', description: 'Every failure: spec section 7' });

export const successEnvelope = z
  .object({
    success: z.literal(true),
    data: z.unknown().optional(),
    message: z.string().meta({ example: 'Prihlásenie úspešné' }),
  })
  .meta({ id: 'SuccessEnvelope', description: 'Every JSON success: `data` holds the result, `message` is Slovak' });

export const messageEnvelope = z
  .object({ success: z.literal(true), message: z.string() })
  .meta({ id: 'MessageEnvelope', description: 'A success without data' });

export const listEnvelope = z
  .object({
    success: z.literal(true),
    data: z.object({
      items: z.array(z.unknown()),
      pagination: z.object({
        page: z.number().int().min(1),
        limit: z.number().int().min(1).max(100),
        total: z.number().int().min(0),
      }),
    }),
    message: z.string(),
  })
  .meta({ id: 'ListEnvelope', description: 'A page of a list (design.md "Lists": limit default 50, at most 100)' });

const retryAfter = z.object({
  'Retry-After': z.string().meta({ description: 'Seconds until a retry can succeed', example: '900' }),
});

function errorResponse(id: string, description: string, headers?: typeof retryAfter): ZodOpenApiResponseObject {
  return { id, description, content: { 'application/json': { schema: errorEnvelope } }, ...(headers ? { headers } : {}) };
}

/** Registered once under components.responses and referenced by every operation. */
export const errorResponses: Record<ErrorStatus | 500, ZodOpenApiResponseObject> = {
  400: errorResponse('BadRequest', 'ValidationError or BadRequestError: the input was rejected (details name the fields)'),
  401: errorResponse('Unauthorized', 'AuthenticationError: no valid credentials'),
  403: errorResponse('Forbidden', 'ForbiddenError: signed in, but not allowed (quota_exceeded: over the upload quota)'),
  404: errorResponse('NotFound', "NotFoundError: no such resource, or another user's"),
  409: errorResponse('Conflict', 'ConflictError'),
  413: errorResponse('PayloadTooLarge', 'The body or file is over its limit'),
  429: errorResponse('TooManyRequests', 'RateLimitError: throttled', retryAfter),
  500: errorResponse('InternalError', "'Interná chyba servera', no internals"),
  502: errorResponse('BadGateway', 'The mail (JMAP) server could not be reached or answered wrongly'),
  503: errorResponse('ServiceUnavailable', 'The database (or the JMAP configuration) is unavailable', retryAfter),
  504: errorResponse('GatewayTimeout', 'The mail (JMAP) server timed out'),
  507: errorResponse('InsufficientStorage', 'The disk is down to the free-space reserve kept for the database (insufficient_storage)'),
};

export const securitySchemes: Record<string, ZodOpenApiSecuritySchemeObject> = {
  accessCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'accessToken',
    description: 'HttpOnly cookie set by login and refresh (1 h)',
  },
  bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'The same access token in `Authorization: Bearer <token>` (API clients)',
  },
  refreshCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'refreshToken',
    description: 'HttpOnly cookie set by login with rememberMe (7 days); only POST /api/auth/refresh reads it',
  },
};
