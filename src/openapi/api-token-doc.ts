import { apiTokenSchema, createdApiTokenData } from '../api-tokens/api-token-responses.js';
import { createApiTokenBody } from '../api-tokens/api-token-schemas.js';
import { idParams, paginationQuery } from '../shared/validation.js';
import type { AreaDoc } from './route-doc.js';

/** Personal API tokens (issue 48): managed only with a login session, never with a token. */
export const apiTokenArea: AreaDoc = {
  tag: 'tokens',
  description:
    'Personal API tokens for integrations: sent as Authorization: Bearer crm_pat_..., scoped per area (docs/api.md "API tokens"). ' +
    'Managed with a login session only: a token calling these paths gets 403 api_token_not_allowed.',
  routes: [
    {
      method: 'post',
      path: '/api/tokens',
      operationId: 'createApiToken',
      auth: 'user',
      summary: 'Create a personal API token: the secret is in this answer only',
      description:
        'scopes: <area>:read / <area>:write (write includes read) for emails, contacts, people, companies, conversations, tasks, ' +
        'timesheets, and admin. A token never has more than its user: admin only for admins (a member asking for it: 400), and ' +
        'every request is also checked against what the user may do now. Only the SHA-256 of the secret is stored. ' +
        'A user with a temporary password: 403 password_change_required. More than 50 tokens: 409.',
      body: createApiTokenBody,
      success: { status: 201, description: 'data.token (the secret, once) and data.apiToken', body: 'data', data: createdApiTokenData },
    },
    {
      method: 'get',
      path: '/api/tokens',
      operationId: 'listApiTokens',
      auth: 'user',
      summary: "The caller's API tokens, newest first (never a secret)",
      description: 'Expired tokens are listed until revoked (expiresAt tells); revoked ones are gone.',
      query: paginationQuery,
      success: { status: 200, description: 'data.items and data.pagination', body: 'list', item: apiTokenSchema },
    },
    {
      method: 'delete',
      path: '/api/tokens/:id',
      operationId: 'revokeApiToken',
      auth: 'user',
      summary: 'Revoke one of the caller\u2019s API tokens, on every instance at once',
      description: "Another user's token, or one already revoked: 404.",
      params: idParams,
      success: { status: 200, description: 'No data', body: 'message' },
    },
  ],
};
