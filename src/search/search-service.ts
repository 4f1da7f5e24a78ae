import type { CompanyService } from '../companies/company-service.js';
import type { CompanyRecord } from '../companies/company-records.js';
import type { ConversationService } from '../conversations/conversation-service.js';
import type { ConversationRecord } from '../conversations/conversation-records.js';
import type { PersonService } from '../people/person-service.js';
import type { PersonRecord } from '../people/person-records.js';

/** The kinds one search box answers, and the token scope each needs (src/api-tokens/api-token-scopes.ts). */
export const SEARCH_KINDS = { people: 'people:read', companies: 'companies:read', conversations: 'conversations:read' } as const;
export type SearchKind = keyof typeof SEARCH_KINDS;

export interface SearchResults {
  people: PersonRecord[];
  companies: CompanyRecord[];
  conversations: ConversationRecord[];
}

/**
 * One search box over people, companies and conversations (issue 49): each kind is the first page of
 * its own list with the same search, so it is scoped exactly as that list is (the accounts the caller
 * may see or read, shares with canRead, revocation) and ranked in that list's order. The lists run one
 * after the other: a request holds at most one pool connection at a time (ADR 0121).
 * People are the people directory's (GET /api/people: one record per person, colleagues left out).
 */
export class SearchService {
  constructor(
    private readonly deps: {
      people: Pick<PersonService, 'list'>;
      companies: Pick<CompanyService, 'list'>;
      conversations: Pick<ConversationService, 'firstMatches'>;
    },
  ) {}

  /** `kinds`: the kinds to look in (a token's scopes may allow fewer); the others answer empty. */
  async search(userId: string, q: string, limit: number, kinds: ReadonlySet<SearchKind>): Promise<SearchResults> {
    const page = { page: 1, limit };
    const people = kinds.has('people') ? (await this.deps.people.list(userId, { search: q, includeColleagues: false }, page)).items : [];
    const companies = kinds.has('companies') ? (await this.deps.companies.list(userId, { search: q, sort: 'lastEmail' }, page)).items : [];
    // The list's first page without its total (the box shows no count).
    const conversations = kinds.has('conversations') ? await this.deps.conversations.firstMatches(userId, { search: q, status: 'all' }, limit) : [];
    return { people, companies, conversations };
  }
}
