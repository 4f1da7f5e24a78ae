import { Router } from 'express';
import { scopesGrant } from '../api-tokens/api-token-scopes.js';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import { presentCompany } from '../companies/company-presenter.js';
import { presentConversation } from '../conversations/conversation-presenter.js';
import { ForbiddenError } from '../errors/app-errors.js';
import type { ExpensiveRequests } from '../http/expensive-requests.js';
import { requireAuthContext } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseQuery } from '../http/validate.js';
import { presentPerson } from '../people/person-presenter.js';
import type { SearchData } from './search-responses.js';
import { searchQuery } from './search-schemas.js';
import { SEARCH_KINDS, type SearchKind, type SearchService } from './search-service.js';

/** An API token whose scopes reach none of the kinds (Slovak, as every message a user sees). */
export const SEARCH_SCOPE_MISSING = 'Token nemá prístup k žiadnej oblasti vyhľadávania';

/** /api/search: one search box over people, companies and conversations (docs/contract.md, "Search"). */
export function createSearchRouter(services: { search: SearchService }, auth: AuthMiddleware, expensive: ExpensiveRequests): Router {
  const router = Router();
  router.use(auth.requireAuth);

  router.get('/', expensive.always, async (req, res) => {
    const { q, limit } = parseQuery(searchQuery, req);
    const caller = requireAuthContext(req);
    // A signed-in user sees every kind; an API token only the kinds its read scopes cover.
    const kinds = new Set((Object.keys(SEARCH_KINDS) as SearchKind[]).filter((kind) => !caller.apiToken || scopesGrant(caller.apiToken.scopes, SEARCH_KINDS[kind])));
    if (kinds.size === 0) throw new ForbiddenError(SEARCH_SCOPE_MISSING, 'insufficient_scope', { requiredScope: Object.values(SEARCH_KINDS).join(' | ') });
    const found = await services.search.search(caller.userId, q, limit, kinds);
    const data: SearchData = {
      people: found.people.map(presentPerson),
      companies: found.companies.map(presentCompany),
      conversations: found.conversations.map(presentConversation),
    };
    ok(res, data, 'Výsledky vyhľadávania');
  });

  return router;
}
