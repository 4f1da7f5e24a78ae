import type { CookieOptions, Response } from 'express';

export const ACCESS_COOKIE = 'accessToken';
export const REFRESH_COOKIE = 'refreshToken';

/** Spec section 5 / 8: the cookies' own max ages (1 hour, 7 days). */
export const ACCESS_COOKIE_MAX_AGE_SECONDS = 3600;
export const REFRESH_COOKIE_MAX_AGE_SECONDS = 604_800;

/**
 * The cookie table of spec section 5. Production: Secure and SameSite=strict; otherwise not Secure and
 * SameSite=lax (plain-http development). Always HttpOnly, path /. Clearing uses the very same
 * attributes: browsers only replace a cookie whose name, path and domain match.
 */
export class AuthCookies {
  private readonly attributes: CookieOptions;

  constructor(production: boolean) {
    this.attributes = { httpOnly: true, secure: production, sameSite: production ? 'strict' : 'lax', path: '/' };
  }

  setAccess(res: Response, token: string): void {
    res.cookie(ACCESS_COOKIE, token, { ...this.attributes, maxAge: ACCESS_COOKIE_MAX_AGE_SECONDS * 1000 });
  }

  setRefresh(res: Response, token: string): void {
    res.cookie(REFRESH_COOKIE, token, { ...this.attributes, maxAge: REFRESH_COOKIE_MAX_AGE_SECONDS * 1000 });
  }

  clearRefresh(res: Response): void {
    res.clearCookie(REFRESH_COOKIE, this.attributes);
  }

  clearAll(res: Response): void {
    res.clearCookie(ACCESS_COOKIE, this.attributes);
    res.clearCookie(REFRESH_COOKIE, this.attributes);
  }
}
