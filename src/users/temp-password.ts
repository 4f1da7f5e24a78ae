import crypto from 'node:crypto';

/** No 0/O, 1/l/I: the admin reads it out or types it into a message. */
const READABLE = 'abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

export function generateTemporaryPassword(length = 14): string {
  let out = '';
  for (let i = 0; i < length; i++) out += READABLE[crypto.randomInt(READABLE.length)];
  return out;
}
