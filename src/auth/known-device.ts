import crypto from 'node:crypto';
import { deriveKey } from '../crypto/derive-key.js';

/** How long a browser stays known after its last successful login there. */
export const KNOWN_DEVICE_TTL_SECONDS = 180 * 24 * 3600;

/**
 * "Device cookies" (OWASP, Slow Down Online Guessing Attacks with Device Cookies): a browser where a
 * user has logged in successfully carries a signed token naming that user. Its login attempts for
 * that user are counted on their own, so guesses by someone else from the same address (an office
 * NAT, a proxy whose TRUST_PROXY is unset) cannot lock the user out of the browser they always use.
 *
 * Format: <device id>.<expiry, unix seconds>.<HMAC-SHA256 of username, id and expiry>. The username is
 * only in the MAC: the cookie does not tell who logged in, and it is worthless for any other username.
 */
export class KnownDevices {
  private readonly key: Buffer;

  constructor(secret: string) {
    // A key of its own derived from the refresh-token secret: no new secret to configure and share.
    this.key = deriveKey(secret, 'known-device-cookie', 'staff-crm');
  }

  issue(username: string, now = Date.now()): string {
    const id = crypto.randomBytes(16).toString('base64url');
    const expires = Math.floor(now / 1000) + KNOWN_DEVICE_TTL_SECONDS;
    return `${id}.${expires}.${this.mac(username, id, expires)}`;
  }

  /** The device id when the token is ours, unexpired and was issued for this username; otherwise null. */
  verify(token: unknown, username: string, now = Date.now()): string | null {
    if (typeof token !== 'string' || token.length > 200) return null;
    const [id, expiresText, mac, extra] = token.split('.');
    if (!id || !expiresText || !mac || extra !== undefined || !/^\d{1,12}$/.test(expiresText)) return null;
    const expires = Number(expiresText);
    if (expires * 1000 <= now) return null;
    const expected = Buffer.from(this.mac(username, id, expires));
    const given = Buffer.from(mac);
    return given.length === expected.length && crypto.timingSafeEqual(given, expected) ? id : null;
  }

  private mac(username: string, id: string, expires: number): string {
    return crypto.createHmac('sha256', this.key).update(`${username.trim().toLowerCase()}\n${id}\n${expires}`).digest('base64url');
  }
}
