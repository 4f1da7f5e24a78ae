/**
 * The keys the erased addresses are hashed under (docs/adr/0161-erasures-carry-their-hash-keys.md).
 *
 * Each installation hashes with a key derived from its CRM_ENCRYPTION_KEY (address-hash.ts); its
 * CRM_ENCRYPTION_OLD_KEYS give the keys of erasures made before a rotation. Erasures that came with a
 * restored archive from another installation were hashed under that installation's key: the archive
 * carries it (wrapped under its signing key, src/backup/hash-key-wrap.ts) and the restore keeps it in
 * privacy_hash_keys, sealed with this installation's key. Every key here is an HMAC key of its own
 * purpose: never an encryption key, and none reveals one.
 */
import crypto from 'node:crypto';
import type { SecretBox } from '../crypto/secret-box.js';
import { deriveKey } from '../crypto/derive-key.js';
import type { Tx } from '../db/transactions.js';
import type { Logger } from '../logging/logger.js';
import type { HashKeyRepository, SealedHashKey } from './hash-key-repository.js';

const HKDF_INFO = 'staff-crm privacy address hash v1';
const KEY_ID_INFO = 'staff-crm privacy hash key id v1';

/** The hash key of an encryption key (HKDF-SHA256: the encryption key itself never keys a hash). */
export function hashKeyOf(encryptionKey: Buffer): Buffer {
  return deriveKey(encryptionKey, HKDF_INFO);
}

/** Names a hash key without revealing it: 16 hex characters of an HMAC of a constant under it. */
export function hashKeyId(key: Buffer): string {
  return crypto.createHmac('sha256', key).update(KEY_ID_INFO).digest('hex').slice(0, 16);
}

/** What the sealed value of a carried key is bound to: its own id (a value copied to another row does not open). */
export function carriedKeyContext(id: string): string {
  return `privacy_hash_key:${id}`;
}

export interface HashKeyDeps {
  repository: HashKeyRepository;
  secretBox: SecretBox;
  encryptionKey: Buffer;
  oldKeys: Buffer[];
  logger: Logger;
}

export class PrivacyHashKeys {
  private readonly own: Buffer[];
  private readonly ownIds: Set<string>;

  constructor(private readonly deps: HashKeyDeps) {
    this.own = [deps.encryptionKey, ...deps.oldKeys].map(hashKeyOf);
    this.ownIds = new Set(this.own.map(hashKeyId));
  }

  /** The keys this installation derives itself: the current one (new hashes) first. */
  derived(): Buffer[] {
    return [...this.own];
  }

  /** The carried keys (privacy_hash_keys) that open here; one that does not (sealed under a key no longer configured) is logged and left out. */
  async carried(tx?: Tx): Promise<Buffer[]> {
    return this.opened(await this.deps.repository.list(tx));
  }

  /** The keys of rows of privacy_hash_keys read elsewhere (a backup's snapshot) that open here. */
  opened(rows: readonly SealedHashKey[]): Buffer[] {
    const keys: Buffer[] = [];
    for (const row of rows) {
      const key = this.open(row);
      if (key && !this.ownIds.has(row.id)) keys.push(key);
    }
    return keys;
  }

  /**
   * The rows to keep for keys an archive carried: those this installation cannot derive itself,
   * sealed with its current key (a restore writes them in its load transaction).
   */
  sealForStorage(keys: Buffer[]): SealedHashKey[] {
    const rows = new Map<string, SealedHashKey>();
    for (const key of keys) {
      const id = hashKeyId(key);
      if (this.ownIds.has(id) || rows.has(id)) continue;
      rows.set(id, { id, sealed: this.deps.secretBox.encrypt(key.toString('base64'), carriedKeyContext(id)) });
    }
    return [...rows.values()];
  }

  private open(row: SealedHashKey): Buffer | undefined {
    try {
      const key = Buffer.from(this.deps.secretBox.decrypt(row.sealed, carriedKeyContext(row.id)), 'base64');
      if (key.length === 32 && hashKeyId(key) === row.id) return key;
      this.deps.logger.error('privacy hash key does not match its id: erasures hashed under it do not hold', { id: row.id });
    } catch (err) {
      this.deps.logger.error('privacy hash key cannot be opened with the configured CRM_ENCRYPTION_KEY: erasures hashed under it do not hold', {
        id: row.id,
        err: err instanceof Error ? err.message : String(err),
      });
    }
    return undefined;
  }
}
