import crypto from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import type { Response } from 'supertest';

export interface ParsedCookie {
  name: string;
  value: string;
  /** Attribute names lower-cased (httponly, secure, samesite, max-age, expires, path); flags map to true. */
  attributes: Record<string, string | true>;
}

/** Every Set-Cookie header of a response, by cookie name. */
export function parseSetCookies(res: Response): Record<string, ParsedCookie> {
  const raw = res.headers['set-cookie'] as unknown;
  const lines = Array.isArray(raw) ? (raw as string[]) : typeof raw === 'string' ? [raw] : [];
  const out: Record<string, ParsedCookie> = {};
  for (const line of lines) {
    const [pair, ...attrs] = line.split(';').map((part) => part.trim());
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    const attributes: Record<string, string | true> = {};
    for (const attr of attrs) {
      const i = attr.indexOf('=');
      if (i < 0) attributes[attr.toLowerCase()] = true;
      else attributes[attr.slice(0, i).toLowerCase()] = attr.slice(i + 1);
    }
    out[name] = { name, value: decodeURIComponent(pair.slice(eq + 1)), attributes };
  }
  return out;
}

export interface HttpLogin {
  res: Response;
  /** `name=value` pairs of the cookies the login set, ready for `.set('Cookie', cookies)`. */
  cookies: string[];
  accessToken?: string;
  refreshToken?: string;
}

/**
 * Logs in through POST /api/auth/login. `ip` needs an app built with testApp({ TRUST_PROXY: '1' }):
 * it is sent as X-Forwarded-For, so throttling counters of different tests never meet.
 */
export async function loginViaHttp(app: Express, username: string, password: string, options: { rememberMe?: boolean; ip?: string; userAgent?: string } = {}): Promise<HttpLogin> {
  let req = request(app)
    .post('/api/auth/login')
    .set('User-Agent', options.userAgent ?? 'crm-tests');
  if (options.ip) req = req.set('X-Forwarded-For', options.ip);
  const body: Record<string, unknown> = { username, password };
  if (options.rememberMe !== undefined) body.rememberMe = options.rememberMe;
  const res = await req.send(body);
  const parsed = parseSetCookies(res);
  const cookies = Object.values(parsed)
    .filter((c) => c.value !== '')
    .map((c) => `${c.name}=${c.value}`);
  const tokens = (res.body as { data?: { tokens?: { accessToken?: string; refreshToken?: string } } }).data?.tokens;
  return { res, cookies, accessToken: tokens?.accessToken, refreshToken: tokens?.refreshToken };
}

/** A random private address, so each test has throttling counters of its own. */
export function randomIp(): string {
  const [a, b, c] = crypto.randomBytes(3);
  return `10.${a}.${b}.${(c % 254) + 1}`;
}
