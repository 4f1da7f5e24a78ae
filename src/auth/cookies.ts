import type { CookieOptions, Request, Response } from 'express';

/** The plain cookie names (docs/contract.md §5), used outside production. */
export const ACCESS_COOKIE = 'accessToken';
export const REFRESH_COOKIE = 'refreshToken';

/**
 * Production names: the `__Host-` prefix makes a browser accept the cookie only when it is Secure,
 * Path=/, without Domain and set by this very host. A sibling subdomain (or a man in the middle on
 * plain http) therefore cannot plant ("toss") a cookie of that name that the browser would send
 * before ours. Plain-http development cannot use the prefix (it needs Secure), so it keeps the plain
 * names. docs/adr/0027-browser-session-protection.md, README.md (first login).
 */
export const HOST_PREFIX = '__Host-';

/** docs/contract.md §5 / §8: the cookies' own max ages (1 hour, 7 days). */
export const ACCESS_COOKIE_MAX_AGE_SECONDS = 3600;
export const REFRESH_COOKIE_MAX_AGE_SECONDS = 604_800;

export interface AuthCookieNames {
  access: string;
  refresh: string;
}

export function authCookieNames(production: boolean): AuthCookieNames {
  const prefix = production ? HOST_PREFIX : '';
  return { access: `${prefix}${ACCESS_COOKIE}`, refresh: `${prefix}${REFRESH_COOKIE}` };
}

/**
 * The cookie table of docs/contract.md §5. Production: Secure and SameSite=strict; otherwise not Secure and
 * SameSite=lax (plain-http development). Always HttpOnly, path /, never a Domain. Clearing uses the
 * very same attributes: browsers only replace a cookie whose name, path and domain match.
 */
export class AuthCookies {
  readonly names: AuthCookieNames;
  private readonly attributes: CookieOptions;

  constructor(readonly production: boolean) {
    this.names = authCookieNames(production);
    this.attributes = { httpOnly: true, secure: production, sameSite: production ? 'strict' : 'lax', path: '/' };
  }

  setAccess(res: Response, token: string): void {
    res.cookie(this.names.access, token, { ...this.attributes, maxAge: ACCESS_COOKIE_MAX_AGE_SECONDS * 1000 });
  }

  setRefresh(res: Response, token: string): void {
    res.cookie(this.names.refresh, token, { ...this.attributes, maxAge: REFRESH_COOKIE_MAX_AGE_SECONDS * 1000 });
  }

  clearRefresh(res: Response): void {
    res.clearCookie(this.names.refresh, this.attributes);
  }

  clearAll(res: Response): void {
    res.clearCookie(this.names.access, this.attributes);
    res.clearCookie(this.names.refresh, this.attributes);
  }

  /** The access token from its cookie, if the request carries one. */
  access(req: Request): string | undefined {
    return cookieValue(req, this.names.access);
  }

  /** The refresh token from its cookie, if the request carries one. */
  refresh(req: Request): string | undefined {
    return cookieValue(req, this.names.refresh);
  }

  /** Whether the request carries any auth cookie (its credential may come from a cookie: CSRF applies). */
  present(req: Request): boolean {
    return this.access(req) !== undefined || this.refresh(req) !== undefined;
  }

  /**
   * An auth cookie named twice in the Cookie header: one of them was planted (a sibling subdomain's
   * Domain cookie, a longer Path) and the parser would silently pick whichever comes first.
   */
  duplicated(req: Request): string | undefined {
    const header = req.headers.cookie;
    if (!header) return undefined;
    const wanted = [this.names.access, this.names.refresh];
    const seen = new Set<string>();
    for (const pair of header.split(';')) {
      // As the parser reads it: a pair without "=" is no cookie at all.
      const eq = pair.indexOf('=');
      if (eq < 0) continue;
      const name = pair.slice(0, eq).trim();
      if (!wanted.includes(name)) continue;
      if (seen.has(name)) return name;
      seen.add(name);
    }
    return undefined;
  }
}

function cookieValue(req: Request, name: string): string | undefined {
  const value = (req.cookies as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}
