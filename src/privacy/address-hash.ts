/**
 * The keyed hash that stands for an email address wherever the CRM must remember it without holding
 * it: the erasure's suppression list and its audit record. HMAC-SHA256 under a key derived (HKDF) from
 * CRM_ENCRYPTION_KEY, so nobody with a copy of the database alone can test guessed addresses against
 * it, and the derived key serves this purpose only (the encryption key itself never keys a hash).
 *
 * New hashes use the current key; matching also tries the retired keys (CRM_ENCRYPTION_OLD_KEYS), so an
 * erasure made before a key rotation keeps holding while the old key is listed there, and the keys of
 * erasures made by another installation whose archive was restored here (hash-keys.ts, ADR 0161).
 */
import crypto from 'node:crypto';
import { normalizeAddress } from '../sync/address-rules.js';
import { hashKeyOf } from './hash-keys.js';

export class AddressHasher {
  private readonly current: Buffer;
  private readonly all: Buffer[];

  constructor(encryptionKey: Buffer, oldKeys: Buffer[] = []) {
    this.current = derive(encryptionKey);
    this.all = [this.current, ...oldKeys.map(derive)];
  }

  /** The hash stored for an address (normalised first: case and surrounding space do not matter). */
  hash(address: string): Buffer {
    return hmac(this.current, canonical(address));
  }

  /** Hex of the hash, for audit records and logs. */
  label(address: string): string {
    return this.hash(address).toString('hex');
  }

  /**
   * The hashes the address may be stored under: current key first, then each retired one, then
   * `carried`, hash keys of other installations (PrivacyHashKeys.carried).
   */
  candidates(address: string, carried: Buffer[] = []): Buffer[] {
    const text = canonical(address);
    return [...this.all, ...carried].map((key) => hmac(key, text));
  }
}

/** The lower-cased address the sync stores; anything that is not an address is hashed as given, trimmed. */
export function canonical(address: string): string {
  return normalizeAddress(address) ?? address.trim().toLowerCase();
}

function derive(key: Buffer): Buffer {
  return hashKeyOf(key);
}

function hmac(key: Buffer, text: string): Buffer {
  return crypto.createHmac('sha256', key).update(text, 'utf8').digest();
}
