import { searchData } from '../search/search-responses.js';
import { searchQuery } from '../search/search-schemas.js';
import type { AreaDoc } from './route-doc.js';

export const searchArea: AreaDoc = {
  tag: 'search',
  description:
    'One search box over people, companies and conversations (issue 49): each kind as its own list finds it with the same search, ' +
    'scoped exactly as that list is. Words match in any of their Slovak forms (faktúra, faktúry, faktúrou), with or without diacritics, ' +
    'and as prefixes while typing (in conversations a number matches itself only: 118 does not find 1180); a "phrase in quotes" matches its exact words in order',
  routes: [
    {
      method: 'get',
      path: '/api/search',
      operationId: 'search',
      auth: 'user',
      summary: 'Search people, companies and conversations at once',
      description:
        'q: 1-200 characters (empty: 400). limit: at most this many of each kind (1-20, default 5). people: the people whose name, address or company ' +
        'holds every word (as GET /api/people?search=, colleagues left out), newest mail first; companies: as GET /api/companies?search=, newest mail first; ' +
        'conversations: as GET /api/conversations?search=&status=all (subject, participants, text, attachment names), latest activity first. ' +
        'With an API token: any token may call it, and only the kinds its read scopes cover are searched (people: people:read, companies: ' +
        'companies:read, conversations: conversations:read), the others answer empty; a token with none of them: 403 insufficient_scope. ' +
        'Counts as a search: at most EXPENSIVE_REQUESTS_PER_USER searches and exports of one user run at once (429 with Retry-After beyond).',
      query: searchQuery,
      success: { status: 200, description: 'At most limit of each kind', body: 'data', data: searchData },
      errors: [403, 429],
    },
  ],
};
