/**
 * The hash keys of the erasures travel in the archive (docs/adr/0161-erasures-carry-their-hash-keys.md):
 * an erasure is a keyed hash of the address, and the key is derived from the CRM_ENCRYPTION_KEY of the
 * installation that erased it. A restore into an installation with another encryption key (a shared
 * BACKUP_SIGNING_KEY and --ignore-key-mismatch) must keep that key, or the next sync brings the erased
 * person back. So header.json carries every hash key of the source, each wrapped (AES-256-GCM, bound to
 * its id) under a key derived from the archive's signing key: whoever can authenticate the archive can
 * unwrap them, nobody else; a forged archive is refused before they are read.
 */
import crypto from 'node:crypto';
import { z } from 'zod';
import { deriveKey } from '../crypto/derive-key.js';
import { hashKeyId } from '../privacy/hash-keys.js';
import { ArchiveFormatError } from './manifest.js';
import type { SigningKey } from './signing.js';

const WRAP_INFO = 'staff-crm backup privacy hash key wrap v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export const wrappedHashKeySchema = z.object({ id: z.string().regex(/^[0-9a-f]{16}$/), wrapped: z.string().min(1) });
export type WrappedHashKey = z.infer<typeof wrappedHashKeySchema>;

const wrapKeyOf = (signing: SigningKey) => deriveKey(signing.macKey, WRAP_INFO);
const aad = (id: string) => Buffer.from(`privacy-hash-key:${id}`, 'utf8');

export function wrapHashKeys(keys: Buffer[], signing: SigningKey): WrappedHashKey[] {
  const wrapKey = wrapKeyOf(signing);
  const seen = new Set<string>();
  const out: WrappedHashKey[] = [];
  for (const key of keys) {
    const id = hashKeyId(key);
    if (seen.has(id)) continue;
    seen.add(id);
    const iv = crypto.randomBytes(IV_BYTES);
    const cipher = crypto.createCipheriv('aes-256-gcm', wrapKey, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad(id));
    const body = Buffer.concat([cipher.update(key), cipher.final()]);
    out.push({ id, wrapped: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url') });
  }
  return out;
}

/** The keys, under the signing key that authenticated the archive; a key that does not open is a damaged archive. */
export function unwrapHashKeys(entries: WrappedHashKey[], signing: SigningKey): Buffer[] {
  const wrapKey = wrapKeyOf(signing);
  return entries.map(({ id, wrapped }) => {
    try {
      const raw = Buffer.from(wrapped, 'base64url');
      const decipher = crypto.createDecipheriv('aes-256-gcm', wrapKey, raw.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(aad(id));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const key = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
      if (key.length === 32 && hashKeyId(key) === id) return key;
    } catch {
      // reported below
    }
    throw new ArchiveFormatError(`the privacy hash key ${id} in header.json does not open under the archive's signing key (nothing was changed)`);
  });
}
