import crypto from 'node:crypto';

const IV_BYTES = 12;
/** Pinned: GCM accepts tags down to 4 bytes unless told otherwise, and a short tag is cheap to forge. */
const TAG_BYTES = 16;

/**
 * Authenticated encryption for secrets at rest (mail passwords): AES-256-GCM with a random 96-bit IV
 * and a 128-bit tag. Every value is bound to a context (e.g. "email_account:<id>") through GCM's
 * additional data: a ciphertext copied into another row does not open there. The key id travels with
 * each value so a key rotation can decrypt old rows while writing new ones.
 * Format: v2:<keyId>:<iv b64url>:<tag b64url>:<ciphertext b64url>
 * v1 (before issue 13: no additional data) is opened only by `openLegacy`, for the re-seal step.
 */
export class SecretBox {
  private readonly keys = new Map<string, Buffer>();
  private readonly currentKeyId: string;

  constructor(currentKey: Buffer, oldKeys: Buffer[] = []) {
    this.currentKeyId = keyId(currentKey);
    this.keys.set(this.currentKeyId, currentKey);
    for (const key of oldKeys) this.keys.set(keyId(key), key);
  }

  encrypt(plain: string, context: string): string {
    const iv = crypto.randomBytes(IV_BYTES);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.keys.get(this.currentKeyId)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v2', this.currentKeyId, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join(':');
  }

  /** Throws when the value was sealed for another context, altered, cut short, or in the old format. */
  decrypt(sealed: string, context: string): string {
    return this.open(sealed, 'v2', context);
  }

  /** The pre-issue-13 format (no context). Only the re-seal step calls this. */
  openLegacy(sealed: string): string {
    return this.open(sealed, 'v1', undefined);
  }

  /** Old format or a retired key: re-seal (openLegacy/decrypt, then encrypt). */
  needsReseal(sealed: string): boolean {
    const [version, id] = sealed.split(':');
    return version !== 'v2' || id !== this.currentKeyId;
  }

  isLegacy(sealed: string): boolean {
    return sealed.startsWith('v1:');
  }

  /** Values sealed with the current key in the current format start with this (for a SQL filter). */
  get currentPrefix(): string {
    return `v2:${this.currentKeyId}:`;
  }

  private open(sealed: string, expectedVersion: 'v1' | 'v2', context: string | undefined): string {
    const [version, id, ivText, tagText, ciphertext, extra] = sealed.split(':');
    if (version !== expectedVersion || !id || !ivText || !tagText || ciphertext === undefined || extra !== undefined) {
      throw new Error('secret-box: unknown format');
    }
    const key = this.keys.get(id);
    if (!key) throw new Error(`secret-box: no key with id ${id} (rotated out?)`);
    const iv = Buffer.from(ivText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error('secret-box: bad IV or tag length');
    const decipher = crypto.createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    if (context !== undefined) decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}

function keyId(key: Buffer): string {
  return crypto.createHash('sha256').update(key).digest('hex').slice(0, 8);
}
