import type { ApiTokenRecord } from './api-token-repository.js';
import type { ApiTokenData } from './api-token-responses.js';
import type { TokenScope } from './api-token-scopes.js';

/** What crm-admin tokens list shows an administrator: whose token it is, too. */
export type AdminApiTokenView = ApiTokenData & { userId: string; username: string };

export function presentAdminApiToken(token: ApiTokenRecord): AdminApiTokenView {
  return { ...presentApiToken(token), userId: token.userId, username: token.username };
}

/** Never the secret or its hash: the record holds neither. */
export function presentApiToken(token: ApiTokenRecord): ApiTokenData {
  return {
    id: token.id,
    name: token.name,
    scopes: token.scopes as TokenScope[],
    expiresAt: token.expiresAt,
    lastUsedAt: token.lastUsedAt,
    createdAt: token.createdAt,
  };
}
