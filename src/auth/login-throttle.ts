import crypto from 'node:crypto';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { RateLimitError } from '../errors/app-errors.js';
import type { ThrottleCounter, ThrottleRepository } from './throttle-repository.js';

export interface ThrottleLimit {
  points: number;
  durationSeconds: number;
}

export interface LoginLimits {
  perUsernameAndIp: ThrottleLimit;
  perIp: ThrottleLimit;
}

/**
 * Failed password checks allowed before 429. The one place these numbers live.
 * - per username+IP: stops guessing one account from one place (5 per 15 min).
 * - per IP: stops one place spraying many accounts (50 per hour).
 * Nothing keys on the username alone: an attacker must never be able to lock a user out from other IPs.
 */
export const LOGIN_LIMITS: LoginLimits = {
  perUsernameAndIp: { points: 5, durationSeconds: 15 * 60 },
  perIp: { points: 50, durationSeconds: 60 * 60 },
};

export const THROTTLED_MESSAGE = 'Príliš veľa neúspešných pokusov o prihlásenie. Skúste to znova neskôr.';

/**
 * Counters live in PostgreSQL (table rate_limits, see ThrottleRepository) so every instance behind a
 * load balancer sees the same failures.
 *
 * An attempt reserves its points BEFORE the password is checked: bcrypt takes long enough that a
 * check-then-count scheme would let hundreds of parallel guesses through before the first failure
 * is counted. A successful check gives the points back.
 */
export class LoginThrottle {
  private readonly byUsernameAndIp: ThrottleCounter;
  private readonly byIp: ThrottleCounter;

  constructor(counters: Pick<ThrottleRepository, 'counter'>, limits: LoginLimits = LOGIN_LIMITS) {
    this.byUsernameAndIp = counters.counter('login_fail_user_ip', limits.perUsernameAndIp);
    this.byIp = counters.counter('login_fail_ip', limits.perIp);
  }

  /** Counts one attempt; throws RateLimitError (with Retry-After) when either limit is already used up. */
  async reserve(username: string, ip: string): Promise<void> {
    const results = await Promise.allSettled([this.byUsernameAndIp.consume(userIpKey(username, ip)), this.byIp.consume(ip)]);
    let waitMs: number | undefined;
    for (const result of results) {
      if (result.status === 'fulfilled') continue;
      // A RateLimiterRes rejection means "over the limit"; anything else is a store failure.
      if (!(result.reason instanceof RateLimiterRes)) throw result.reason;
      waitMs = Math.max(waitMs ?? 0, result.reason.msBeforeNext);
    }
    if (waitMs !== undefined) throw new RateLimitError(THROTTLED_MESSAGE, Math.max(1, waitMs / 1000));
  }

  /** The password was right: this username+IP starts from zero again and the IP gets its point back. */
  async succeeded(username: string, ip: string): Promise<void> {
    await Promise.all([this.byUsernameAndIp.delete(userIpKey(username, ip)), this.byIp.reward(ip)]);
  }
}

/** Hashed: keys stay within varchar(255) whatever the input, and the table holds no usernames. */
function userIpKey(username: string, ip: string): string {
  const user = crypto.createHash('sha256').update(username.trim().toLowerCase()).digest('base64url');
  return `${user}_${ip}`;
}
