import type { Request, Response } from 'express';
import { KNOWN_DEVICE_TTL_SECONDS } from './known-device.js';

/** The known-device cookie (known-device.ts). Only the login endpoint ever receives it. */
export const KNOWN_DEVICE_COOKIE = 'knownDevice';
const COOKIE_PATH = '/api/auth/login';

export function readKnownDevice(req: Request): string | undefined {
  const value = (req.cookies as Record<string, unknown> | undefined)?.[KNOWN_DEVICE_COOKIE];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Set on every successful login (a fresh expiry), with the auth cookies' security attributes but a
 * path of its own: it is sent to the login endpoint only. Logout leaves it: it identifies the browser,
 * not a session, and is worthless for any other username.
 */
export function setKnownDevice(res: Response, token: string, production: boolean): void {
  res.cookie(KNOWN_DEVICE_COOKIE, token, {
    httpOnly: true,
    secure: production,
    sameSite: production ? 'strict' : 'lax',
    path: COOKIE_PATH,
    maxAge: KNOWN_DEVICE_TTL_SECONDS * 1000,
  });
}
