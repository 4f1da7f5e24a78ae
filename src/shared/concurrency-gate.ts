import { RateLimitError } from '../errors/app-errors.js';

/**
 * At most `perKey` transfers per key (a user) and `total` in all, in this process: a member holding
 * dozens of uploads or downloads open must not tie up the mail server's HTTP workers or this
 * process's sockets (issue 26). Beyond a bound the caller gets a 429 with Retry-After at once;
 * nothing waits in a queue. Per process, like the sockets it protects: behind a load balancer each
 * instance keeps its own bound.
 */
export class ConcurrencyGate {
  private readonly perKey = new Map<string, number>();
  private total = 0;
  /** Callers of enterWithin waiting for a place to be given back. */
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly limits: { perKey: number; total: number },
    private readonly message: string,
    private readonly retryAfterSeconds = 5,
  ) {}

  /** Takes a place or throws RateLimitError; the answer gives the place back (once, however often called). */
  enter(key: string): () => void {
    const mine = this.perKey.get(key) ?? 0;
    if (!this.hasRoom(key)) throw new RateLimitError(this.message, this.retryAfterSeconds);
    this.perKey.set(key, mine + 1);
    this.total += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total -= 1;
      const left = (this.perKey.get(key) ?? 1) - 1;
      if (left <= 0) this.perKey.delete(key);
      else this.perKey.set(key, left);
      for (const wake of [...this.waiters]) wake();
    };
  }

  /**
   * Takes a place, waiting up to `ms` for one to be given back (for a request that must not be refused,
   * such as a change of read state that also answers the email); undefined when none came in time.
   */
  async enterWithin(key: string, ms: number): Promise<(() => void) | undefined> {
    const deadline = Date.now() + ms;
    while (!this.hasRoom(key)) {
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.waiters.add(wake);
      });
    }
    return this.enter(key);
  }

  private hasRoom(key: string): boolean {
    return (this.perKey.get(key) ?? 0) < this.limits.perKey && this.total < this.limits.total;
  }

  /** Places taken now (for tests and metrics). */
  get inUse(): number {
    return this.total;
  }
}
