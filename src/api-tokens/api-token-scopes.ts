/**
 * What an API token may reach (issue 48, docs/api.md "API tokens"): THE one table of it. A path that
 * is not in TOKEN_PATHS refuses every token (403), so a new router is closed to tokens until someone
 * decides its area here; the auth middleware (src/auth/auth-middleware.ts) and the OpenAPI document
 * both read this table.
 */

/** Areas with a read and a write scope. */
export const TOKEN_AREAS = ['emails', 'contacts', 'people', 'companies', 'conversations', 'tasks', 'timesheets'] as const;
export type TokenArea = (typeof TOKEN_AREAS)[number];

export const TOKEN_SCOPES = [...TOKEN_AREAS.flatMap((area) => [`${area}:read`, `${area}:write`] as const), 'admin'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/**
 * What a path under /api needs: an area's read or write scope by method, `admin` (every method), or
 * `identity` (any valid token: who am I). The longest matching prefix decides, whole segments only.
 * Not here, so never reachable with a token: /auth/* but me and session (password, onboarding,
 * sessions, logout, refresh), /tokens (a leaked token must not mint tokens), /events (a stream bound to
 * a login session; integrations get webhooks).
 */
export const TOKEN_PATHS: ReadonlyArray<{ prefix: string; needs: TokenArea | 'admin' | 'identity' }> = [
  { prefix: '/auth/me', needs: 'identity' },
  { prefix: '/auth/session', needs: 'identity' },
  { prefix: '/emails', needs: 'emails' },
  // Accounts, their sync and their sharing (and the colleague directory that sharing picks from) are the mailbox's.
  { prefix: '/email-accounts', needs: 'emails' },
  { prefix: '/users/directory', needs: 'emails' },
  // Writing mail: templates and drafts go with the mail they become (signatures are under /email-accounts).
  { prefix: '/templates', needs: 'emails' },
  { prefix: '/drafts', needs: 'emails' },
  { prefix: '/contacts', needs: 'contacts' },
  // A follow-up is set on a contact (PUT /contacts/:id/follow-up); its list goes with it.
  { prefix: '/follow-ups', needs: 'contacts' },
  { prefix: '/companies', needs: 'companies' },
  { prefix: '/people', needs: 'people' },
  // Tasks; a timeline's task items also need tasks:read (src/timelines).
  { prefix: '/tasks', needs: 'tasks' },
  // The team inbox: reading conversations and their comments, triage, comments and one's own read marks.
  { prefix: '/conversations', needs: 'conversations' },
  { prefix: '/timesheets', needs: 'timesheets' },
  // One search box over several areas: any token reaches it, and it answers only the kinds whose
  // read scope the token has (contacts:read, companies:read, conversations:read; none: 403), src/search/search-routes.ts.
  { prefix: '/search', needs: 'identity' },
  { prefix: '/admin', needs: 'admin' },
];

/** The scope a request needs, `identity` for any token, or null when no token may call it. */
export type RequiredScope = TokenScope | 'identity' | null;

/** `path`: relative to /api (`/contacts/123`), or a route's Express path (`/contacts/:id`). */
export function requiredScope(path: string, method: string): RequiredScope {
  const lower = path.toLowerCase();
  let best: (typeof TOKEN_PATHS)[number] | undefined;
  for (const entry of TOKEN_PATHS) {
    const inside = lower === entry.prefix || lower.startsWith(`${entry.prefix}/`);
    if (inside && (!best || entry.prefix.length > best.prefix.length)) best = entry;
  }
  if (!best) return null;
  if (best.needs === 'identity' || best.needs === 'admin') return best.needs;
  const reads = method === 'GET' || method === 'HEAD';
  return `${best.needs}:${reads ? 'read' : 'write'}`;
}

/** Whether scopes grant what a request needs: write implies read; admin is its own scope. */
export function scopesGrant(scopes: readonly string[], needed: Exclude<RequiredScope, null>): boolean {
  if (needed === 'identity') return true;
  if (scopes.includes(needed)) return true;
  return needed.endsWith(':read') && scopes.includes(`${needed.slice(0, -':read'.length)}:write`);
}
