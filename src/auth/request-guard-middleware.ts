import type { Request, RequestHandler } from 'express';
import { BadRequestError, ForbiddenError } from '../errors/app-errors.js';
import { bearerToken } from './auth-middleware.js';
import { CSRF_REJECTED, DUPLICATE_COOKIE } from './auth-messages.js';
import type { AuthCookies } from './cookies.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * An auth cookie named twice in one Cookie header is refused before anything reads it: which of the
 * two a parser picks is an accident, and the other was planted ("cookie tossing" from a sibling
 * subdomain, whose Domain or longer-Path cookie the browser sends first).
 */
export function rejectDuplicateAuthCookies(cookies: AuthCookies): RequestHandler {
  return (req, _res, next) => {
    if (cookies.duplicated(req)) throw new BadRequestError(DUPLICATE_COOKIE, undefined, 'duplicate_cookie');
    next();
  };
}

/** What the CSRF check compared, in error.details of csrf_rejected: enough to fix a proxy or CORS_ORIGIN. */
export interface CsrfRejection {
  /** origin_mismatch: Origin is neither this service's host nor a CORS_ORIGIN; the others: Origin unusable, or no Origin and Sec-Fetch-Site cross-site. */
  reason: 'origin_mismatch' | 'origin_not_http' | 'cross_site_request';
  /** The Origin header as sent (null when absent). */
  origin: string | null;
  /** The host the Origin was compared with: Host, or X-Forwarded-Host when TRUST_PROXY trusts the proxy. */
  host: string | null;
  hostFrom: 'Host' | 'X-Forwarded-Host';
  trustProxy: number;
  /** The configured CORS_ORIGIN list. */
  corsOrigins: string[];
}

/**
 * CSRF (docs/contract.md §5): a browser attaches our cookies to a request another site makes it send. A
 * state-changing request whose credential can come from a cookie is accepted only from this service's
 * own origin or one of CORS_ORIGIN. Requests without Origin (curl, server-to-server: no browser sent
 * them) and Bearer requests (no browser adds that header on its own) pass. SameSite=lax outside
 * production would still let a top-level cross-site form POST through; this check does not depend on
 * it. A refusal says what was compared: behind a proxy that rewrites Host without TRUST_PROXY, every
 * POST of the app fails here, and the details show why.
 */
export function csrfGuard(cookies: AuthCookies, options: { corsOrigins: readonly string[]; trustProxy: number }): RequestHandler {
  return (req, _res, next) => {
    if (SAFE_METHODS.has(req.method) || bearerToken(req) || !cookies.present(req)) {
      next();
      return;
    }
    const reason = refusal(req, options.corsOrigins);
    if (reason) {
      const details: CsrfRejection = {
        reason,
        origin: req.get('origin') ?? null,
        host: req.host ?? null,
        hostFrom: options.trustProxy > 0 && req.get('x-forwarded-host') ? 'X-Forwarded-Host' : 'Host',
        trustProxy: options.trustProxy,
        corsOrigins: [...options.corsOrigins],
      };
      throw new ForbiddenError(CSRF_REJECTED, 'csrf_rejected', details);
    }
    next();
  };
}

/**
 * The own origin is compared by host (Host, or X-Forwarded-Host behind TRUST_PROXY), whatever the
 * scheme: behind a TLS-terminating proxy this process sees http while the browser says https.
 * `Origin: null` (sandboxed frames, local files) is never allowed.
 */
function refusal(req: Request, corsOrigins: readonly string[]): CsrfRejection['reason'] | undefined {
  const origin = req.get('origin');
  if (origin === undefined) return req.get('sec-fetch-site')?.toLowerCase() === 'cross-site' ? 'cross_site_request' : undefined;
  if (corsOrigins.includes(origin)) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return 'origin_not_http';
  }
  // A browser sends the serialised origin exactly (scheme://host[:port]); anything else is not one.
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.origin !== origin) return 'origin_not_http';
  return sameHost(parsed, req.host) ? undefined : 'origin_mismatch';
}
function sameHost(origin: URL, requestHost: string | undefined): boolean {
  if (!requestHost) return false;
  const defaultPort = origin.protocol === 'https:' ? '443' : '80';
  const withPort = (host: string, port: string) => `${host.toLowerCase()}:${port || defaultPort}`;
  let request: URL;
  try {
    request = new URL(`${origin.protocol}//${requestHost}`);
  } catch {
    return false;
  }
  return withPort(origin.hostname, origin.port) === withPort(request.hostname, request.port);
}
