import { RateLimiterRes } from 'rate-limiter-flexible';
import type { ThrottleCounter, ThrottleRepository } from '../auth/throttle-repository.js';
import { RateLimitError } from '../errors/app-errors.js';

export const SEND_THROTTLED_MESSAGE = 'Odoslali ste príliš veľa emailov za krátky čas. Skúste to znova neskôr.';

/**
 * Emails per user per window, counted in PostgreSQL (rate_limits, like the login throttle) so that
 * every instance behind a load balancer counts the same sends. A send that sent nothing gives its
 * point back.
 */
export class SendThrottle {
  private readonly perUser: ThrottleCounter;

  constructor(counters: Pick<ThrottleRepository, 'counter'>, limit: { points: number; durationSeconds: number }) {
    this.perUser = counters.counter('send_user', limit);
  }

  /** Counts one send; throws RateLimitError (429, Retry-After) when the user's sends are used up. */
  async take(userId: string): Promise<void> {
    try {
      await this.perUser.consume(userId);
    } catch (err) {
      if (err instanceof RateLimiterRes) throw new RateLimitError(SEND_THROTTLED_MESSAGE, Math.max(1, err.msBeforeNext / 1000));
      throw err;
    }
  }

  async giveBack(userId: string): Promise<void> {
    await this.perUser.reward(userId);
  }
}
