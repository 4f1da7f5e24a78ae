import crypto from 'node:crypto';

/**
 * The secret of an API token: a recognisable prefix (secret scanners and people see what leaked) and
 * 32 random bytes in base64url, 51 characters in all. Only its SHA-256 is stored: with 256 bits of
 * entropy nothing can be guessed from the hash, so a slow password hash would only slow every
 * request (docs/adr/0130-api-tokens-hashed-with-sha256.md).
 */
export const API_TOKEN_PREFIX = 'crm_pat_';
const SHAPE = /^crm_pat_[A-Za-z0-9_-]{43}$/;

export function newApiTokenSecret(): string {
  return `${API_TOKEN_PREFIX}${crypto.randomBytes(32).toString('base64url')}`;
}

/** Whether a Bearer credential is meant as an API token (then never tried as a JWT). */
export function isApiTokenCredential(credential: string): boolean {
  return credential.startsWith(API_TOKEN_PREFIX);
}

/** Whether it can be one of ours at all: anything else is refused without a query. */
export function hasApiTokenShape(credential: string): boolean {
  return SHAPE.test(credential);
}

export function hashApiToken(secret: string): string {
  return crypto.createHash('sha256').update(secret).digest('hex');
}
