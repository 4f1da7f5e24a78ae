/**
 * Says a recurring condition once per burst instead of once per request: the database refusing
 * connections ("too many clients", starting up) or the pool timing out fails every request for a while,
 * and a warning per request would flood the journal exactly when an operator reads it. The first
 * occurrence is logged; the next ones within `quietMs` of the previous are counted, and the count is
 * told with the first occurrence of the next burst.
 */
export class BurstLog {
  private lastAt = Number.NEGATIVE_INFINITY;
  private suppressed = 0;

  constructor(private readonly quietMs = 10_000) {}

  /** Whether to log this occurrence, and how many were left unsaid since the last one logged. */
  occur(now = Date.now()): { log: boolean; suppressedBefore: number } {
    const quiet = now - this.lastAt > this.quietMs;
    this.lastAt = now;
    if (!quiet) {
      this.suppressed++;
      return { log: false, suppressedBefore: 0 };
    }
    const suppressedBefore = this.suppressed;
    this.suppressed = 0;
    return { log: true, suppressedBefore };
  }
}
