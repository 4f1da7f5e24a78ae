import crypto from 'node:crypto';

/**
 * Authenticated encryption for secrets at rest (mail passwords): AES-256-GCM with a random 96-bit IV.
 * The key id travels with each value so a key rotation can decrypt old rows while writing new ones.
 * Format: v1:<keyId>:<iv b64url>:<tag b64url>:<ciphertext b64url>
 */
export class SecretBox {
  private readonly keys = new Map<string, Buffer>();
  private readonly currentKeyId: string;

  constructor(currentKey: Buffer, oldKeys: Buffer[] = []) {
    this.currentKeyId = keyId(currentKey);
    this.keys.set(this.currentKeyId, currentKey);
    for (const key of oldKeys) this.keys.set(keyId(key), key);
  }

  encrypt(plain: string): string {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.keys.get(this.currentKeyId)!, iv);
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', this.currentKeyId, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join(':');
  }

  decrypt(sealed: string): string {
    const [version, id, iv, tag, ciphertext] = sealed.split(':');
    if (version !== 'v1' || !id || !iv || !tag || ciphertext === undefined) throw new Error('secret-box: unknown format');
    const key = this.keys.get(id);
    if (!key) throw new Error(`secret-box: no key with id ${id} (rotated out?)`);
    const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** True when the value was sealed with a retired key and should be re-encrypted. */
  needsRotation(sealed: string): boolean {
    return sealed.split(':')[1] !== this.currentKeyId;
  }
}

function keyId(key: Buffer): string {
  return crypto.createHash('sha256').update(key).digest('hex').slice(0, 8);
}
