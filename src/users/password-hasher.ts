import crypto from 'node:crypto';
import { HashWorkers } from './hash-workers.js';

/** One pool per process, shared by every hasher (test contexts, CLI): one thread per core in total. */
const sharedWorkers = new HashWorkers();

/**
 * bcrypt reads only the first 72 bytes. Instead of truncating silently, longer inputs are pre-hashed
 * (SHA-256, base64: 44 bytes) so every byte of a long passphrase counts. Hashing runs on
 * low-priority worker threads (hash-workers.ts) and never blocks the event loop.
 */
export class PasswordHasher {
  /** A real hash of a random value, compared against when the user does not exist (equal timing). */
  private dummyHash?: Promise<string>;

  constructor(
    private readonly rounds: number,
    private readonly workers: HashWorkers = sharedWorkers,
  ) {}

  /**
   * Makes the unknown-user hash ahead of need: the HTTP app does at start, so that its first login
   * of an unknown user takes the time of any other. Not at construction: a crm-admin command that
   * ends (process.exit) while a worker thread is inside bcrypt aborts the whole process (SIGABRT from
   * the addon's teardown), and most commands never verify a password.
   */
  warmUp(): void {
    void this.unknownUserHash();
  }

  hash(plain: string): Promise<string> {
    return this.workers.hash(prepare(plain), this.rounds);
  }

  async verify(plain: string, hash: string | null | undefined): Promise<boolean> {
    if (!hash) {
      await this.workers.compare(prepare(plain), await this.unknownUserHash());
      return false;
    }
    return this.workers.compare(prepare(plain), hash);
  }

  /** The hash compared against when the user does not exist; made at the configured cost, like every new hash. */
  unknownUserHash(): Promise<string> {
    if (!this.dummyHash) {
      this.dummyHash = this.workers.hash(crypto.randomBytes(16).toString('hex'), this.rounds);
      this.dummyHash.catch(() => {}); // Reported by the first verify that needs it, not as an unhandled rejection.
    }
    return this.dummyHash;
  }

  /**
   * A stored hash made at another cost than the configured one: it answers wrong passwords in a
   * different time than unknown users (whose dummy hash has the configured cost), so it is replaced
   * at the next successful login.
   */
  needsRehash(hash: string): boolean {
    const cost = /^\$2[abxy]?\$(\d{2})\$/.exec(hash)?.[1];
    return cost !== undefined && Number(cost) !== this.rounds;
  }

  /** Burns the same time as a real check; for paths that must not reveal whether a user exists. */
  async burn(plain: string): Promise<void> {
    await this.workers.compare(prepare(plain), await this.unknownUserHash());
  }
}

function prepare(plain: string): string {
  return Buffer.byteLength(plain, 'utf8') > 72 ? crypto.createHash('sha256').update(plain, 'utf8').digest('base64') : plain;
}
