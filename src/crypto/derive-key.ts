import crypto from 'node:crypto';

/**
 * A 32-byte key of its own for one purpose, derived (HKDF-SHA256, RFC 5869) from a secret the
 * operator already keeps: no new secret to configure, and a key for one purpose reveals nothing of
 * the secret or of the keys for other purposes. `info` names the purpose and its version; changing
 * it changes the key (and invalidates whatever the old key made).
 */
export function deriveKey(secret: crypto.BinaryLike, info: string, salt: crypto.BinaryLike = Buffer.alloc(0)): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', secret, salt, info, 32));
}
