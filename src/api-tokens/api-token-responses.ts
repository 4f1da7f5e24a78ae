import { z } from 'zod';
import { nullableTimestamp, timestamp, uuid } from '../shared/response-fields.js';
import { TOKEN_SCOPES } from './api-token-scopes.js';

/** A personal API token as its user sees it: never the secret (shown once, at creation), never a hash. */
export const apiTokenSchema = z
  .object({
    id: uuid,
    name: z.string(),
    scopes: z.array(z.enum(TOKEN_SCOPES)),
    expiresAt: nullableTimestamp.meta({ description: 'When it stops working; null: never' }),
    lastUsedAt: nullableTimestamp.meta({ description: 'Last use, recorded at most once in 10 minutes; null: never used' }),
    createdAt: timestamp,
  })
  .meta({ id: 'ApiToken' });

/** data of POST /api/tokens: the secret, this once. */
export const createdApiTokenData = z.object({
  token: z.string().min(32).meta({ description: 'The secret (crm_pat_ and 43 characters), shown only in this answer: send it as Authorization: Bearer' }),
  apiToken: apiTokenSchema,
});

export type ApiTokenData = z.input<typeof apiTokenSchema>;
export type CreatedApiTokenData = z.input<typeof createdApiTokenData>;
