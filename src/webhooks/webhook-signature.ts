import crypto from 'node:crypto';

/** The secret's prefix of the Standard Webhooks specification (standardwebhooks.com). */
export const SECRET_PREFIX = 'whsec_';

/** A new signing secret: whsec_ and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + crypto.randomBytes(32).toString('base64');
}

/**
 * `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed with the base64-decoded part of the
 * secret after whsec_: what every Standard Webhooks receiver library verifies.
 */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}
