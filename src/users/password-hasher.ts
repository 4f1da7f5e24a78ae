import crypto from 'node:crypto';
import bcrypt from 'bcrypt';

/**
 * bcrypt reads only the first 72 bytes. Instead of truncating silently, longer inputs are pre-hashed
 * (SHA-256, base64: 44 bytes) so every byte of a long passphrase counts. Always the async API:
 * hashing runs on the libuv pool and never blocks the event loop.
 */
export class PasswordHasher {
  /** A real hash of a random value, compared against when the user does not exist (equal timing). */
  private readonly dummyHash: Promise<string>;

  constructor(private readonly rounds: number) {
    this.dummyHash = bcrypt.hash(crypto.randomBytes(16).toString('hex'), rounds);
  }

  hash(plain: string): Promise<string> {
    return bcrypt.hash(prepare(plain), this.rounds);
  }

  async verify(plain: string, hash: string | null | undefined): Promise<boolean> {
    if (!hash) {
      await bcrypt.compare(prepare(plain), await this.dummyHash);
      return false;
    }
    return bcrypt.compare(prepare(plain), hash);
  }

  /** Burns the same time as a real check; for paths that must not reveal whether a user exists. */
  async burn(plain: string): Promise<void> {
    await bcrypt.compare(prepare(plain), await this.dummyHash);
  }
}

function prepare(plain: string): string {
  return Buffer.byteLength(plain, 'utf8') > 72 ? crypto.createHash('sha256').update(plain, 'utf8').digest('base64') : plain;
}
